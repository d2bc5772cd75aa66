import XCTest
@testable import Display
