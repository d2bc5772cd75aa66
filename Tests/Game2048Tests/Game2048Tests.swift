import XCTest
@testable import Game2048
