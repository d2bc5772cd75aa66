import TestSupport
import XCTest
import Graphics
import UI
@testable import Arcade


/// The whole kiosk as a player and an operator meet it, played from the tour script that
/// `make run` also shows; every screenshot is a reference image.
final class TourTests: XCTestCase {
    func testTourOfTheKiosk() throws {
        let (runner, store) = try makeRunner(self)
        let script = try HeadlessScript(text: String(contentsOfFile: sourceRoot + "/data/scripts/tour.script", encoding: .utf8),
                                        file: "tour.script")
        let shots = try makeTemporaryDirectory(self)
        try runner.run(script, shotsDirectory: shots)
        var names: [String] = []
        for case (_, .shot(let name)) in script.commands { names.append(name) }
        XCTAssertEqual(names.count, 11)
        for name in names {
            let shot = try Surface.loadPNG("\(shots)/\(name).png")
            assertMatchesReference(shot, "tour-\(name)")
        }
        // What the operator changed stuck, and every game was opened once.
        XCTAssertEqual(store.setting("audio.volume"), "70")
        XCTAssertEqual(store.setting("kiosk.language"), "zh")
        XCTAssertEqual(runner.kiosk.mode, .menu)
        for game in ["beat_zombies", "guess_picture", "2048", "memory"] {
            XCTAssertEqual(store.plays(game: game), 1, game)
        }
    }

    func testIdleGameReturnsToMenuThenAttractThenTouchWakesMenu() throws {
        let (runner, _) = try makeRunner(self) { s in
            s.kiosk.idleToMenuSeconds = 20
            s.kiosk.menuToAttractSeconds = 30
        }
        runner.tap([(496, 285)])
        XCTAssertEqual(runner.kiosk.mode, .game("2048"))
        runner.advance(21)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        runner.advance(31)
        guard case .attract = runner.kiosk.mode else { return XCTFail("not attract: \(runner.kiosk.mode)") }
        // The first touch goes back to the menu and does not open the tile under it.
        runner.tap([(110, 285)])
        XCTAssertEqual(runner.kiosk.mode, .menu)
        runner.advance(0.5)
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }

    func testAttractModeCyclesThroughGamesSilently() throws {
        let (runner, _) = try makeRunner(self) { s in
            s.kiosk.menuToAttractSeconds = 1
            s.kiosk.attractSecondsPerGame = 2
        }
        var seen: Set<String> = []
        let before = runner.sound.requests.count
        runner.advance(2)   // into the attract mode, halfway through its first game
        for _ in 0..<4 {
            if case .attract(let id) = runner.kiosk.mode { seen.insert(id) }
            runner.advance(2)
        }
        XCTAssertEqual(seen.count, 4, "every game shows itself: \(seen)")
        XCTAssertFalse(runner.sound.requests[before...].contains { if case .effect = $0 { return true } else { return false } },
                       "attract mode plays no effects")
    }

    func testLeavingAGamePausesItAndComingBackResumes() throws {
        let (runner, _) = try makeRunner(self)
        runner.tap([(110, 285)])
        guard let zombies = runner.kiosk.screen.scene as? GameScene else { return XCTFail("no game scene") }
        runner.advance(1)
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertEqual(runner.sound.requests.last, .music(.menu))
        runner.tap([(110, 285)])
        XCTAssertTrue(runner.kiosk.screen.scene === zombies, "the same game, resumed")
    }
}
