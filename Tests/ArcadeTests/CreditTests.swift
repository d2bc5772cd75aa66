#if canImport(Glibc)
import Glibc
#endif
import Graphics
import Input
import Platform
import TestSupport
import UI
import XCTest
@testable import Arcade
@testable import BeatZombies

/// Coins and credits: the settings, the meter, a game that starts only with a credit, the
/// continue countdown, and coins that survive their writer being killed.
final class CreditTests: XCTestCase {
    func testSettingsParseAndRefuseBadValues() {
        var s = Settings()
        XCTAssertEqual(s.kiosk.playMode, .free, "free play is the default")
        XCTAssertNil(s.coin.key)
        XCTAssertNil(s.apply(key: "kiosk.mode", value: "credits"))
        XCTAssertNil(s.apply(key: "kiosk.credits_per_play", value: "2"))
        XCTAssertNil(s.apply(key: "kiosk.coins_per_credit", value: "4"))
        XCTAssertNil(s.apply(key: "coin.key", value: "KEY_5"))
        XCTAssertEqual(s.coin.key, 6)
        XCTAssertEqual(s.value(for: "coin.key"), "KEY_5")
        XCTAssertNil(s.apply(key: "coin.key", value: "BTN_TRIGGER_HAPPY1"))
        XCTAssertEqual(s.value(for: "coin.key"), "BTN_TRIGGER_HAPPY1")
        XCTAssertNotNil(s.apply(key: "coin.key", value: "KEY_NOPE"))
        XCTAssertNotNil(s.apply(key: "kiosk.mode", value: "paid"))
        XCTAssertNotNil(s.apply(key: "kiosk.credits_per_play", value: "0"))
        XCTAssertNotNil(s.apply(key: "kiosk.coins_per_credit", value: "x"))
        XCTAssertEqual(s.kiosk.playMode, .credits)
        XCTAssertEqual(s.kiosk.creditsPerPlay, 2)
        XCTAssertEqual(s.kiosk.coinsPerCredit, 4)
        XCTAssertTrue(s.rendered().contains("[coin]\nkey = BTN_TRIGGER_HAPPY1\n"))
    }

    func testTheCoinKeyIsCoinOnlyWhereConfigured() {
        var mapper = KeyMapper()
        let press = RawInputEvent(time: 1, type: 1 /* EV_KEY */, code: 6 /* KEY_5 */, value: 1)
        XCTAssertEqual(mapper.handle(press), [KeyEvent(key: .digit5, isPressed: true, time: 1)], "KEY_5 is a digit by default")
        _ = mapper.handle(RawInputEvent(time: 1, type: 1, code: 6, value: 0))
        mapper.coinCode = 6
        XCTAssertEqual(mapper.handle(press), [KeyEvent(key: .coin, isPressed: true, time: 1)])
    }

    func testCoinsMakeCreditsAndPlaysTakeThem() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 1)
        var kiosk = Settings.Kiosk()
        kiosk.playMode = .credits
        kiosk.coinsPerCredit = 2
        kiosk.creditsPerPlay = 2
        var meter = CreditMeter(store: store, settings: kiosk)
        XCTAssertFalse(meter.canPlay)
        meter.insertCoin(now: 2)
        XCTAssertEqual(meter.credits, 0, "half a credit")
        meter.insertCoin(now: 3)
        XCTAssertEqual(meter.credits, 1)
        XCTAssertFalse(meter.chargePlay(now: 4), "a play costs two")
        XCTAssertEqual(meter.credits, 1, "nothing taken")
        meter.insertCoin(now: 5)
        meter.insertCoin(now: 6)
        XCTAssertTrue(meter.chargePlay(now: 7))
        XCTAssertEqual(meter.credits, 0)
        XCTAssertEqual(store.counter("coins"), 4)
        XCTAssertEqual(store.counter("credits.bought"), 2)
        XCTAssertEqual(store.counter("credits.used"), 2)
        // Free play: coins are counted, credits are not needed.
        var free = CreditMeter(store: store, settings: Settings.Kiosk())
        XCTAssertTrue(free.canPlay)
        free.insertCoin(now: 8)
        XCTAssertEqual(store.counter("coins"), 5)
        XCTAssertEqual(free.credits, 0)
        XCTAssertTrue(free.chargePlay(now: 9))
    }

    func testEveryAcknowledgedCoinSurvivesTheWriterBeingKilled() throws {
        let dir = try makeTemporaryDirectory(self)
        do { StateStore(directory: dir, now: 0).close(now: 0) }
        for round in 0..<6 {
            let forked = forkChild { acks in
                // The writer: one coin at a time, each acknowledged (a byte down the pipe)
                // only once insertCoin has returned, i.e. written and fsync'd.
                let store = StateStore(directory: dir, now: 0)
                var settings = Settings.Kiosk()
                settings.playMode = .credits
                var meter = CreditMeter(store: store, settings: settings)
                var ack: UInt8 = 1
                while true {
                    meter.insertCoin(now: 0)
                    _ = write(acks, &ack, 1)
                }
            }
            let (child, acks) = try XCTUnwrap(forked)
            // Read acknowledgements for a while, then kill the writer wherever it is.
            var acknowledged = 0
            let want = 5 + (round * 7) % 20
            var byte: UInt8 = 0
            while acknowledged < want, read(acks, &byte, 1) == 1 { acknowledged += 1 }
            usleep(UInt32((round * 1_733) % 9_000))
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            while read(acks, &byte, 1) == 1 { acknowledged += 1 }
            close(acks)
            let before = try XCTUnwrap(Int(readFile(dir + "/counters")?.split(separator: "\n")
                .first { $0.hasPrefix("coins=") }?.dropFirst(6) ?? ""), "round \(round): the counters file parses")
            let store = StateStore(directory: dir, now: 0)
            XCTAssertFalse(Files.exists(dir + "/counters.corrupt-1"), "round \(round): never corrupt")
            XCTAssertEqual(store.counter("coins"), before)
            XCTAssertGreaterThanOrEqual(store.counter("coins"), totalAcknowledged + acknowledged,
                                        "round \(round): every acknowledged coin is on disk")
            // At most the coin being written when the kill came is there unacknowledged.
            XCTAssertLessThanOrEqual(store.counter("coins"), totalAcknowledged + acknowledged + 1)
            XCTAssertEqual(store.counter(CounterKey.creditBalance), store.counter("coins"), "one coin, one credit")
            totalAcknowledged = store.counter("coins")
            store.close(now: 0)
        }
    }
    private var totalAcknowledged = 0

    // MARK: - The kiosk

    private func creditsRunner(_ configure: (inout Settings) -> Void = { _ in }) throws -> (HeadlessRunner, StateStore) {
        try makeRunner(self) { s in
            s.kiosk.playMode = .credits
            s.kiosk.idleToMenuSeconds = 0
            configure(&s)
        }
    }

    private func coin(_ runner: HeadlessRunner) {
        runner.kiosk.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now)
        runner.kiosk.handle(.key(KeyEvent(key: .coin, isPressed: false, time: runner.now)), now: runner.now)
        runner.advance(0.1)
    }

    func testFreePlayCountsCoinsAndNeedsNoCredit() throws {
        let (runner, store) = try makeRunner(self)
        coin(runner)
        XCTAssertEqual(store.counter("coins"), 1)
        XCTAssertEqual(store.counter(CounterKey.creditBalance), 0)
        runner.kiosk.open(game: "2048")
        XCTAssertEqual(runner.kiosk.mode, .game("2048"))
    }

    func testAGameStartsOnlyWithACredit() throws {
        let (runner, store) = try creditsRunner()
        let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
        XCTAssertEqual(menu.creditLine, "Insert coin · credits 0")
        runner.kiosk.open(game: "2048")
        XCTAssertEqual(runner.kiosk.mode, .menu, "no credit, no game")
        coin(runner)
        XCTAssertEqual(menu.creditLine, "Credits 1 · tap a game")
        XCTAssertEqual(readFile(store.path("counters"))?.contains("credits.balance=1\n"), true, "on disk at once")
        runner.kiosk.open(game: "2048")
        XCTAssertEqual(runner.kiosk.mode, .game("2048"))
        XCTAssertEqual(store.counter(CounterKey.creditBalance), 0)
        runner.kiosk.goHome()
        runner.kiosk.open(game: "2048")
        XCTAssertEqual(runner.kiosk.mode, .game("2048"), "a paid game left half-way resumes free")
        runner.kiosk.goHome()
        runner.kiosk.open(game: "memory")
        XCTAssertEqual(runner.kiosk.mode, .menu, "another game is another play")
    }

    func testAFinishedPaidGameGoesToTheMenuNotPlayAgain() throws {
        let (runner, store) = try creditsRunner()
        for _ in 0..<10 { store.addHighScore("2048.best.4x4", HighScoreEntry(score: 5000, initials: "TOP", date: "2026-12-01"),
                                             lowerIsBetter: false, now: 1) }
        coin(runner)
        runner.kiosk.open(game: "2048")
        let scene = try XCTUnwrap(runner.kiosk.shelf.openGames["2048"])
        scene.reportResult(10, variantKey: "2048.best.4x4")
        XCTAssertTrue(runner.kiosk.coins.isWaitingAfterPaidGame(runner.kiosk.mode), "the game's own panel takes no touch now")
        runner.advance(HighScoreDesk.initialsDelay + 0.1)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertNil(runner.kiosk.shelf.openGames["2048"], "the finished scene is gone")
    }

    private func loseBeatZombies(_ runner: HeadlessRunner) throws -> BeatZombiesScene {
        let scene = try XCTUnwrap(runner.kiosk.shelf.openGames["beat_zombies"] as? BeatZombiesScene)
        var rounds = 0
        // The rules step without drawing (a frame caps at 0.25 s): the zombies walk in.
        while scene.game.phase == .playing && rounds < 4000 {
            scene.update(dt: 0.25)
            rounds += 1
        }
        runner.advance(0.1)
        XCTAssertEqual(scene.game.phase, .lost)
        return scene
    }

    func testContinueCountsDownAndACoinDuringItContinues() throws {
        let (runner, store) = try creditsRunner()
        coin(runner)
        runner.kiosk.open(game: "beat_zombies")
        let scene = try loseBeatZombies(runner)
        runner.advance(HighScoreDesk.initialsDelay + 0.1)
        XCTAssertEqual(runner.kiosk.mode, .continuing("beat_zombies"))
        let prompt = try XCTUnwrap(runner.kiosk.screen.scene as? ContinueScene)
        XCTAssertEqual(prompt.count, 9)
        XCTAssertFalse(prompt.continueButton.isEnabled, "no credit left")
        runner.advance(3)
        XCTAssertEqual(prompt.count, 6)
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .continuing("beat_zombies"), "no credit: confirm does nothing")
        coin(runner)
        XCTAssertTrue(prompt.continueButton.isEnabled)
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .game("beat_zombies"))
        XCTAssertEqual(scene.game.phase, .playing, "the game goes on")
        XCTAssertEqual(scene.game.inHouse, 0)
        XCTAssertEqual(store.counter(CounterKey.creditBalance), 0)
        XCTAssertEqual(store.counter("credits.used"), 2)
    }

    func testContinueRunsOutToTheTableOrTheMenu() throws {
        let (runner, _) = try creditsRunner()
        coin(runner)
        runner.kiosk.open(game: "beat_zombies")
        _ = try loseBeatZombies(runner)
        runner.advance(HighScoreDesk.initialsDelay + 0.1)
        XCTAssertEqual(runner.kiosk.mode, .continuing("beat_zombies"))
        runner.advance(ContinueScene.duration - 0.2)
        XCTAssertEqual(runner.kiosk.mode, .continuing("beat_zombies"))
        runner.advance(0.3)
        // A score of 0 makes an empty table: initials, then the table, then the menu.
        XCTAssertEqual(runner.kiosk.mode, .initials("beat_zombies"))
        runner.key("confirm")
        runner.key("confirm")
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .highScores("beat_zombies"))
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertNil(runner.kiosk.shelf.openGames["beat_zombies"])
    }

    func testContinuePictures() {
        for (width, height, language, credits) in [(800, 480, Language.english, 0), (480, 800, Language.chinese, 2)] {
            var now = 100.0
            let prompt = ContinueScene(language: language, creditsPerPlay: 1, credits: credits, now: now, clock: { now })
            let h = SceneHarness(width: width, height: height, scene: prompt)
            now = 102.5
            h.run(seconds: 0.3)
            XCTAssertEqual(prompt.count, 7)
            h.check("continue-\(width)x\(height)-\(language.rawValue)")
        }
    }

    func testInsertCoinPictures() throws {
        for (width, height, language) in [(800, 480, Language.english), (480, 800, Language.chinese)] {
            let (runner, _) = try makeRunner(self, width: width, height: height, configure: { settings in
                settings.kiosk.language = language
                settings.kiosk.playMode = .credits
                settings.kiosk.menuToAttractSeconds = 10
                settings.kiosk.enabledGames = ["memory"]
                settings.kiosk.attractSecondsPerGame = 5
            }, prepare: { store in
                for (i, name) in ["ACE", "BOB", "CAT"].enumerated() {
                    store.addHighScore("memory.best.4x4", HighScoreEntry(score: 12 + i, initials: name, date: "2026-11-2\(i)"),
                                       lowerIsBetter: true, now: 1)
                }
            })
            runner.advance(11)
            XCTAssertEqual(runner.kiosk.mode, .attract("memory"))
            // The game, then its table (still: the game's play changes with its rules).
            runner.advance(5)
            XCTAssertTrue(runner.kiosk.screen.scene is HighScoreScene)
            runner.advance(1.2)
            assertMatchesReference(runner.screenshot(), "attract-insert-coin-\(width)x\(height)-\(language.rawValue)", tolerance: 24)
            coin(runner)
            XCTAssertEqual(runner.kiosk.mode, .menu, "a coin wakes the menu")
            runner.advance(0.5)
            assertMatchesReference(runner.screenshot(), "menu-credits-\(width)x\(height)-\(language.rawValue)")
        }
    }
}
