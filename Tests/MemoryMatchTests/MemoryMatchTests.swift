import XCTest
@testable import MemoryMatch
