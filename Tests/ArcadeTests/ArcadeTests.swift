import TestSupport
import XCTest
@testable import Arcade
