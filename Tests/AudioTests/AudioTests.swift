import XCTest
@testable import Audio
