import TestSupport
import XCTest
import Graphics
import UI
@testable import Arcade

/// What the kiosk draws frame by frame (only what changed) is what it draws redrawing
/// every pixel: no view leaves pixels behind (a shadow past its outset, a sprite past
/// its rect, a change drawn without damage). Two kiosks run in step through the attract
/// mode, which plays every game by its autoplayer; one draws only its damage, the other
/// every pixel of every fifth frame. At 1280x800 a point is 1.67 pixels, where an outset
/// a point short shows (at 800x480 the damage's pixel of margin hides it).
final class DamageHonestyTests: XCTestCase {
    func testFramesDrawnByDamageMatchFullRedraws() throws {
        func kiosk() throws -> HeadlessRunner {
            let (runner, _) = try makeRunner(self, width: 1280, height: 800) { settings in
                settings.kiosk.menuToAttractSeconds = 1
                settings.kiosk.attractSecondsPerGame = 3
                settings.kiosk.idleToMenuSeconds = 86400
            }
            runner.frameInterval = 0.1
            return runner
        }
        let damaged = try kiosk(), full = try kiosk()
        var games = Set<String>()
        for step in 1...110 {
            let check = step % 5 == 0
            if check { full.kiosk.screen.invalidateAll() }
            damaged.advance(0.1)
            full.advance(0.1)
            if case .attract(let id) = damaged.kiosk.mode { games.insert(id) }
            guard check else { continue }
            XCTAssertEqual(damaged.kiosk.mode, full.kiosk.mode, "the two kiosks in step")
            let differing = ImageComparison(damaged.kiosk.screen.shadow, full.kiosk.screen.shadow, tolerance: 0).differingPixels
            XCTAssertEqual(differing, 0, "\(damaged.kiosk.mode) at \(damaged.now)")
        }
        XCTAssertGreaterThanOrEqual(games.count, 3, "the attract mode played \(games.sorted())")
    }
}
