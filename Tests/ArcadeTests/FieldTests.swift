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

/// What the field does to a cabinet that a test bench does not: a state partition that
/// fills up or turns read-only, a card edited by a stranger (counters at Int.max, settings
/// that name paths and PINs), a new cabinet's empty state directory.
final class FieldTests: XCTestCase {
    // MARK: - A state partition that takes no writes

    /// A state directory that cannot be written: a plain file where the directory should
    /// be (ENOTDIR, as a missing mount is EROFS); removing it is the operator freeing space.
    private func unwritableRunner(mode: PlayMode) throws -> (HeadlessRunner, StateStore, String) {
        let dir = try makeTemporaryDirectory(self) + "/state"
        try writeFile(dir, "in the way\n")
        let (runner, store) = try makeRunner(self, directory: dir) { s in
            s.kiosk.playMode = mode
            s.kiosk.idleToMenuSeconds = 0
            s.kiosk.menuToAttractSeconds = 0
            s.metrics.textfileDir = "none"
        }
        return (runner, store, dir)
    }

    private func coin(_ runner: HeadlessRunner) {
        runner.kiosk.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now)
        runner.kiosk.handle(.key(KeyEvent(key: .coin, isPressed: false, time: runner.now)), now: runner.now)
        runner.advance(0.1)
    }

    func testCreditsModeRefusesCoinsItCannotRecordAndSaysOutOfOrder() throws {
        let (runner, store, dir) = try unwritableRunner(mode: .credits)
        XCTAssertFalse(store.isWritable)
        let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
        XCTAssertEqual(menu.creditLine, "Out of order · call staff")
        let logged = capturingLog { coin(runner) }
        XCTAssertTrue(logged.contains { $0.hasPrefix("<3>coin: refused") }, "\(logged)")
        XCTAssertEqual(store.counter(CounterKey.creditBalance), 0, "no credit for a coin the books cannot show")
        XCTAssertEqual(store.counter(CounterKey.coins), 0)
        XCTAssertEqual(store.counter(CounterKey.coinsRefused), 1)
        runner.kiosk.open(game: "2048")
        XCTAssertEqual(runner.kiosk.mode, .menu, "no game for a refused coin")
        let metrics = try ParsedMetrics(runner.kiosk.reporting.snapshot(of: runner.kiosk, cpuSeconds: 0).text)
        XCTAssertEqual(metrics["boardwalk_state_writable"], 0)
        XCTAssertEqual(metrics["boardwalk_coins_refused_total"], 1)

        // The operator frees the partition: the next retry writes, and coins count again,
        // without a restart.
        unlink(dir)
        runner.advance(store.retryDelay + 1)
        XCTAssertTrue(store.isWritable)
        XCTAssertEqual(menu.creditLine, "Insert coin · credits 0", "the menu follows at once")
        coin(runner)
        XCTAssertEqual(store.counter(CounterKey.creditBalance), 1)
        XCTAssertEqual(readFile(dir + "/counters")?.contains("credits.balance=1\n"), true, "on disk")
        let after = try ParsedMetrics(runner.kiosk.reporting.snapshot(of: runner.kiosk, cpuSeconds: 0).text)
        XCTAssertEqual(after["boardwalk_state_writable"], 1)
    }

    func testFreePlayKeepsCoinsInMemoryUntilThePartitionTakesThem() throws {
        let (runner, store, dir) = try unwritableRunner(mode: .free)
        coin(runner)
        coin(runner)
        XCTAssertEqual(store.counter(CounterKey.coins), 2, "counted, waiting for the disk")
        XCTAssertEqual(store.counter(CounterKey.coinsRefused), 0)
        unlink(dir)
        runner.advance(store.retryDelay + 1)
        XCTAssertEqual(readFile(dir + "/counters")?.contains("coins=2\n"), true)
    }

    func testTheOperatorMenuWarnsWhileTheStateCannotBeWritten() throws {
        for (width, height, language) in [(800, 480, Language.english), (480, 800, Language.chinese)] {
            let dir = try makeTemporaryDirectory(self) + "/state"
            try writeFile(dir, "in the way\n")
            let (runner, store) = try makeRunner(self, directory: dir, width: width, height: height) {
                $0.kiosk.language = language
            }
            runner.kiosk.showOperatorScene()
            runner.advance(0.2)
            let scene = try XCTUnwrap(runner.kiosk.screen.scene as? OperatorScene)
            let words = OperatorWords(language)
            XCTAssertTrue(visibleTexts(scene).contains(words.stateNotWritable), "the warning is on screen")
            // For a person to look at (out/shots), as the screens a reference image holds.
            let shots = TestPaths(file: #filePath).out + "/shots"
            try Files.makeDirectories(shots)
            try runner.screenshot().writePNG(shots + "/operator-state-not-writable-\(width)x\(height)-\(language.rawValue).png")
            unlink(dir)
            store.flush(now: runner.now)   // the retry (every minute), now
            runner.advance(0.2)
            XCTAssertTrue(store.isWritable)
            XCTAssertTrue(runner.kiosk.screen.scene === scene)
            XCTAssertFalse(visibleTexts(scene).contains(words.stateNotWritable), "gone once the partition takes writes")
            runner.kiosk.goHome()
        }
    }

    /// The words of every label on screen (hidden ones and their subviews left out).
    private func visibleTexts(_ view: View) -> [String] {
        guard !view.isHidden else { return [] }
        return ((view as? Label).map { [$0.text] } ?? []) + view.subviews.flatMap(visibleTexts)
    }

    // MARK: - A card a stranger edited

    private static let everyCounter = [CounterKey.coins, CounterKey.creditsBought, CounterKey.creditsUsed,
                                       CounterKey.creditBalance, CounterKey.coinsPending, CounterKey.uptime,
                                       CounterKey.starts, CounterKey.crashes, CounterKey.watchdogRestarts,
                                       CounterKey.booksResetAt, CounterKey.coinsRefused]

    func testCountersAtIntMaxSaturateThroughTheBooksTheMetricsAndACoin() throws {
        let dir = try makeTemporaryDirectory(self)
        var text = "# edited\n"
        for key in Self.everyCounter { text += "\(key)=\(Int.max)\n" }
        for game in GameCatalog.standard.ids {
            text += "\(CounterKey.plays(game))=\(Int.max)\n\(CounterKey.playTime(game))=\(Int.max)\n"
        }
        try writeFile(dir + "/counters", text)
        try writeFile(dir + "/running", "1\n")   // a crash to count on top
        let (runner, store) = try makeRunner(self, directory: dir) { s in
            s.kiosk.playMode = .credits
            s.kiosk.coinsPerCredit = 2
        }
        XCTAssertEqual(store.counter(CounterKey.starts), Int.max)
        XCTAssertEqual(store.counter(CounterKey.crashes), Int.max)
        let rows = runner.kiosk.books.rows
        for game in GameCatalog.standard.ids {
            XCTAssertEqual(rows.first { $0.item == "average_game_seconds" && $0.game == game }?.value, 1)
        }
        XCTAssertTrue(runner.kiosk.books.csv(exportedAt: 1_796_000_000).contains("coins,,\(Int.max)\n"))
        coin(runner)
        coin(runner)
        XCTAssertEqual(store.counter(CounterKey.coins), Int.max)
        XCTAssertEqual(store.counter(CounterKey.creditBalance), Int.max)
        runner.kiosk.open(game: "2048")
        XCTAssertEqual(runner.kiosk.mode, .game("2048"))
        runner.advance(2)
        runner.kiosk.goHome()
        XCTAssertEqual(store.counter(CounterKey.playTime("2048")), Int.max)
        let metrics = try ParsedMetrics(runner.kiosk.reporting.snapshot(of: runner.kiosk, cpuSeconds: 0).text)
        XCTAssertEqual(metrics["boardwalk_coins_total"], Double(Int.max))
        for page in [OperatorPageKind.books, .coins] {
            runner.kiosk.showPage(page)
            runner.advance(0.2)
            _ = runner.screenshot()
        }
        store.flush(now: runner.now)
        XCTAssertEqual(StateStore(directory: dir, now: 0, beginsRun: false).counter(CounterKey.coins), Int.max)
    }

    func testTheStatePartitionSetsOnlyWhatTheOperatorMenuSets() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/settings", """
            audio.volume=40
            kiosk.operator_pin=none
            kiosk.data_dir=/media/stick
            kiosk.state_dir=/tmp
            audio.sounds_dir=/media/stick/sounds
            coin.key=KEY_SPACE
            coin.device=AT Translated Set 2 keyboard
            input.keyboards=all
            metrics.exporter_port=80

            """)
        let store = StateStore(directory: dir, now: 0, beginsRun: false)
        var settings = Settings()
        settings.kiosk.operatorPIN = HeadlessRunner.tourPIN
        settings.coin.key = 6
        let before = settings
        let problems = store.applySettings(to: &settings)
        XCTAssertEqual(settings.audio.volume, 40, "an operator setting applies")
        XCTAssertEqual(settings.kiosk.operatorPIN, before.kiosk.operatorPIN)
        XCTAssertEqual(settings.kiosk.dataDir, before.kiosk.dataDir)
        XCTAssertEqual(settings.kiosk.stateDir, before.kiosk.stateDir)
        XCTAssertEqual(settings.audio.soundsDir, before.audio.soundsDir)
        XCTAssertEqual(settings.coin, before.coin)
        XCTAssertEqual(settings.input.keyboards, before.input.keyboards)
        XCTAssertEqual(settings.metrics.exporterPort, before.metrics.exporterPort)
        XCTAssertEqual(problems.count, 8, "\(problems)")
        XCTAssertTrue(problems.allSatisfy { "\($0)".contains("not an operator setting") })
        XCTAssertFalse(problems.contains { "\($0)".contains("/media/stick") }, "values are not repeated")
    }

    func testTheOperatorMenuCannotSaveARootSetting() throws {
        let (runner, store) = try makeRunner(self)
        runner.kiosk.change("kiosk.data_dir", to: "/media/stick")
        runner.kiosk.change("audio.volume", to: "30")
        XCTAssertNil(store.setting("kiosk.data_dir"))
        XCTAssertEqual(store.setting("audio.volume"), "30")
    }

    // MARK: - A board without a clock

    /// A Pi has no RTC: switched on without time sync it thinks it is 1970. The dates a
    /// cabinet writes (high-score entries, the books' reset) never go back before the last
    /// time it saw, and the journal says the time is unknown.
    func testDatesNeverRunBackwardsOnABoardWithoutAClock() throws {
        let dir = try makeTemporaryDirectory(self)
        let december = 1_796_126_400   // 2026-12-01 12:00 UTC
        do {
            let store = StateStore(directory: dir, now: 0, beginsRun: false)
            store.systemTime = { december }
            store.beginRun(now: 0)
            store.close(now: 100)
        }
        XCTAssertEqual(readFile(dir + "/counters")?.contains("\(CounterKey.lastKnownTime)=\(december)\n"), true)

        // The next boot: the clock says 1970.
        let store = StateStore(directory: dir, now: 0, beginsRun: false)
        store.systemTime = { 60 }
        let logged = capturingLog { store.beginRun(now: 0) }
        XCTAssertTrue(logged.contains { $0.hasPrefix("<4>clock:") && $0.contains("the time is unknown") }, "\(logged)")
        XCTAssertEqual(store.wallTime(now: 30), december + 30, "on from the last known time")
        store.resetBookkeeping(now: 40)
        XCTAssertEqual(store.counter(CounterKey.booksResetAt), december + 40, "the books' reset is dated from there too")
        XCTAssertEqual(store.counter(CounterKey.lastKnownTime), december + 40, "a reset of the books keeps the clock")
        // Time sync arrives: the real time wins as soon as it is later.
        store.systemTime = { december + 86_400 }
        XCTAssertEqual(store.wallTime(now: 50), december + 86_400)
        store.close(now: 60)
    }

    func testAHighScoreIsDatedByTheCabinetsClockNotThe1970Board() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/counters", "\(CounterKey.lastKnownTime)=1796126400\n")
        let (runner, store) = try makeRunner(self, directory: dir)
        store.systemTime = { 5 }
        XCTAssertEqual(runner.kiosk.scores.today(), WallClock(epochSeconds: store.wallTime(now: runner.now)).isoDate)
        XCTAssertTrue(runner.kiosk.scores.today().hasPrefix("2026-12-"), runner.kiosk.scores.today())
    }

    // MARK: - A new cabinet

    func testTheBooksOfANewCabinetAreZero() throws {
        let dir = try makeTemporaryDirectory(self)
        guard case .success(let books) = Bookkeeping.read(stateDirectory: dir, games: GameCatalog.standard.ids) else {
            return XCTFail("a state directory without counters has zero books")
        }
        XCTAssertTrue(books.rows.allSatisfy { $0.value == 0 })
        XCTAssertTrue(books.csv(exportedAt: 0).hasPrefix("item,game,value\n"))
        XCTAssertEqual(Bookkeeping.commandMain(["--csv", "--state-dir", dir], games: GameCatalog.standard.ids), 0)
        try writeFile(dir + "/counters", "coins=x\n")
        guard case .failure = Bookkeeping.read(stateDirectory: dir, games: GameCatalog.standard.ids) else {
            return XCTFail("a corrupt file is still an error")
        }
    }
}

/// The partition fills up under a running kiosk: the coin that finds it full is the write
/// that turns the store unwritable, on the menu, which then redraws its credit line.
final class PartitionFillsUpTests: XCTestCase {
    func testTheCoinThatFindsThePartitionFullIsKeptAndTheMenuFollows() throws {
        for mode in [PlayMode.free, .credits] {
            let dir = try makeTemporaryDirectory(self) + "/state"
            let (runner, store) = try makeRunner(self, directory: dir) { s in
                s.kiosk.playMode = mode
                s.metrics.textfileDir = "none"
            }
            runner.advance(1)
            XCTAssertTrue(store.isWritable)
            XCTAssertEqual(runner.kiosk.mode, .menu)
            // Writes fail from now on, as on a full partition.
            try FileManager.default.removeItem(atPath: dir)
            try writeFile(dir, "in the way\n")
            let logged = capturingLog {
                runner.kiosk.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now)
                runner.advance(0.1)
            }
            XCTAssertFalse(store.isWritable, "\(mode)")
            if mode == .free {
                XCTAssertEqual(store.counter(CounterKey.coins), 1, "kept in memory")
                XCTAssertTrue(logged.contains { $0.contains("(in memory: the state partition cannot be written)") }, "\(logged)")
            } else {
                let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
                XCTAssertEqual(menu.creditLine, "Out of order · call staff", "the menu says so at once")
            }
        }
    }
}
