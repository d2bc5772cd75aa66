import XCTest
@testable import Arcade
