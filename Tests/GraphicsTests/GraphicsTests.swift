import XCTest
@testable import Graphics
