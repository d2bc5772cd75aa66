import XCTest
@testable import Platform
