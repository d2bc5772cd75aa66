import XCTest
@testable import UI
