import Graphics
import TestSupport
import UI
import XCTest
@testable import Arcade
@testable import FindTheBall

/// The add-a-game recipe of docs/ARCHITECTURE.md, checked by following it: Find the Ball
/// is a module of its own (rules, scene, descriptor) and runs in the real kiosk like the
/// four games.
final class FindTheBallTests: XCTestCase {
    /// A headless kiosk whose catalogue holds the four games and Find the Ball (the
    /// kiosk's `GameCatalog.standard` gets it by one line in Arcade/StandardGames.swift).
    private func makeKiosk(_ store: StateStore, directory: String) throws -> HeadlessRunner {
        let catalog = GameCatalog(GameCatalog.standard.games + [.findTheBall])
        var settings = Settings()
        settings.kiosk.stateDir = directory
        settings.kiosk.dataDir = TestPaths(file: #filePath).data
        settings.kiosk.enabledGames = catalog.ids
        let runner = try HeadlessRunner(settings: settings, width: 800, height: 480, store: store, catalog: catalog)
        runner.frameInterval = 1.0 / 20
        return runner
    }

    private func tap(_ runner: HeadlessRunner, _ view: View) {
        let center = view.rectInRoot.center
        runner.tap([(center.x, center.y)])
    }

    func testAFifthGameIsInTheMenuOpensPlaysEndsAndKeepsItsBest() throws {
        let directory = try makeTemporaryDirectory(self)
        let store = StateStore(directory: directory, now: 1)
        let runner = try makeKiosk(store, directory: directory)
        runner.kiosk.scores.today = { "2026-12-06" }

        // The menu shows its tile among the four, with the others' words.
        let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
        XCTAssertEqual(menu.games.map(\.id), ["beat_zombies", "guess_picture", "2048", "memory", "find_the_ball"])
        func tile() throws -> GameTile {
            try XCTUnwrap(menu.subviews.compactMap { $0 as? GameTile }.first { $0.game.id == "find_the_ball" })
        }
        assertMatchesReference(runner.screenshot(), "find-the-ball-menu-800x480")

        // A tap on the tile opens it.
        tap(runner, try tile())
        XCTAssertEqual(runner.kiosk.mode, .game("find_the_ball"))
        let scene = try XCTUnwrap(runner.kiosk.screen.scene as? FindTheBallScene)
        XCTAssertEqual(runner.sound.requests.last, .music(.memoryMatch))

        // Five rounds, the ball found in all but the first: the shared end-of-game panel.
        for round in 0..<FindTheBallModel.roundCount {
            let cup = round == 0 ? (scene.model.ballCup + 1) % FindTheBallModel.cupCount : scene.model.ballCup
            tap(runner, scene.cups[cup])
        }
        XCTAssertEqual(scene.model.phase, .over)
        XCTAssertEqual(scene.model.score, 4)
        let panel = try XCTUnwrap(scene.endPanel)
        XCTAssertEqual(panel.headlineLabel.text, "Found 4 of 5")
        XCTAssertEqual(store.best("ball.best"), 4, "the best is kept in the state store")
        runner.advance(EndOfGamePanel.buttonDelay + 0.4)
        assertMatchesReference(runner.screenshot(), "find-the-ball-end-800x480")

        // The result makes the empty table: initials, then the table.
        runner.advance(HighScoreDesk.initialsDelay)
        XCTAssertEqual(runner.kiosk.mode, .initials("find_the_ball"))
        runner.key("confirm")
        runner.key("confirm")
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .highScores("find_the_ball"))
        XCTAssertEqual(store.highScores("ball.best", lowerIsBetter: false).entries,
                       [HighScoreEntry(score: 4, initials: "AAA", date: "2026-12-06")])

        // OK goes back to the game, where "play again" starts over; a worse game keeps the best.
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .game("find_the_ball"))
        tap(runner, try XCTUnwrap(scene.endPanel?.buttons.first))
        XCTAssertNil(scene.endPanel)
        XCTAssertEqual(scene.model.round, 0)
        for _ in 0..<FindTheBallModel.roundCount { tap(runner, scene.cups[(scene.model.ballCup + 1) % FindTheBallModel.cupCount]) }
        XCTAssertEqual(store.best("ball.best"), 4)

        // The back key leaves the panel for the menu; the tile shows the best, the books count
        // the plays.
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertTrue(runner.kiosk.screen.scene === menu)
        XCTAssertEqual(try tile().best, "Most found 4")
        XCTAssertEqual(store.plays(game: "find_the_ball"), 1)
    }

    func testTheAttractModePlaysItWithoutKeepingABest() {
        let storage = MemoryStorage()
        let harness = SceneHarness<FindTheBallScene>(game: .findTheBall, storage: storage)
        harness.scene.isAutoplaying = true
        harness.run(seconds: 10)
        XCTAssertGreaterThan(harness.effects(.win), 0, "it finished games by itself")
        XCTAssertNil(harness.scene.endPanel, "no panel in attract mode")
        XCTAssertNil(storage.integer("ball.best"))
    }
}
