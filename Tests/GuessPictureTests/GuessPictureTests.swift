import XCTest
@testable import GuessPicture
