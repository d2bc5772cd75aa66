import XCTest
@testable import Input
