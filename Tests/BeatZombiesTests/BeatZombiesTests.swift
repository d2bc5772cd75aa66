import XCTest
@testable import BeatZombies
