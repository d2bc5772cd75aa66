import Glibc
import Graphics
import Input
import Platform
import TestSupport
import UI
import BeatZombies
import XCTest
@testable import Arcade
@testable import GuessPicture

/// High-score tables: the ranking rules (ties, lower-is-better, ten places), the stored
/// tables per variant, the initials entry and its timeout, and the kiosk's flow from a
/// finished game to the table.
final class HighScoreTests: XCTestCase {
    private func entry(_ score: Int, _ initials: String = "ABC", _ date: String = "2026-12-01") -> HighScoreEntry {
        HighScoreEntry(score: score, initials: initials, date: date)
    }

    func testTiesGoBelowAndTheTableKeepsTen() {
        var table = HighScoreTable(lowerIsBetter: false)
        XCTAssertEqual(table.insert(entry(100, "AAA")), 0)
        XCTAssertEqual(table.insert(entry(200, "BBB")), 0)
        XCTAssertEqual(table.insert(entry(100, "CCC")), 2, "a tie goes below the earlier entry")
        XCTAssertEqual(table.entries.map(\.initials), ["BBB", "AAA", "CCC"])
        for i in 0..<7 { table.insert(entry(50 - i, "DDD")) }
        XCTAssertEqual(table.entries.count, 10)
        XCTAssertNil(table.rank(for: 44), "a tie with the tenth does not push it out")
        XCTAssertNil(table.insert(entry(10)))
        XCTAssertEqual(table.insert(entry(45, "EEE")), 9, "beating the tenth takes its place")
        XCTAssertEqual(table.entries.count, 10)
        XCTAssertEqual(table.entries.last?.initials, "EEE")
    }

    func testFewestMovesRankFirst() {
        var table = HighScoreTable(lowerIsBetter: true)
        table.insert(entry(20, "AAA"))
        table.insert(entry(12, "BBB"))
        table.insert(entry(12, "CCC"))
        table.insert(entry(30, "DDD"))
        XCTAssertEqual(table.entries.map(\.initials), ["BBB", "CCC", "AAA", "DDD"])
        XCTAssertEqual(table.rank(for: 11), 0)
        XCTAssertEqual(table.rank(for: 12), 2)
    }

    func testTablesAreKeptPerVariantAndSurviveARestart() throws {
        let dir = try makeTemporaryDirectory(self)
        do {
            let store = StateStore(directory: dir, now: 1)
            store.addHighScore("2048.best.4x4", entry(900, "AAA"), lowerIsBetter: false, now: 1)
            store.addHighScore("2048.best.5x5", entry(3000, "BBB"), lowerIsBetter: false, now: 1)
            store.addHighScore("memory.best.4x4", entry(14, "CCC"), lowerIsBetter: true, now: 1)
            store.addHighScore("memory.best.4x4", entry(12, "DDD"), lowerIsBetter: true, now: 1)
            XCTAssertNil(store.addHighScore("2048.best.4x4", entry(1, "a-b"), lowerIsBetter: false, now: 1),
                         "initials are three capital letters")
            store.close(now: 2)
        }
        let store = StateStore(directory: dir, now: 3)
        XCTAssertEqual(store.highScores("2048.best.4x4", lowerIsBetter: false).entries, [entry(900, "AAA")])
        XCTAssertEqual(store.highScores("2048.best.5x5", lowerIsBetter: false).entries, [entry(3000, "BBB")])
        XCTAssertEqual(store.highScores("memory.best.4x4", lowerIsBetter: true).entries.map(\.initials), ["DDD", "CCC"])
        XCTAssertTrue(store.highScores("2048.best.6x6", lowerIsBetter: false).entries.isEmpty)
        XCTAssertTrue(readFile(dir + "/scores")!.contains("top.memory.best.4x4=12:DDD:2026-12-01,14:CCC:2026-12-01\n"))
    }

    /// A cabinet's tables from before they joined the bests in `scores` (a `highscores`
    /// file) are kept: written into `scores` at the start, the old file gone after.
    func testTablesMoveFromTheirOldFileIntoScores() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/scores", "zombies.best=120\n")
        try writeFile(dir + "/highscores", "# old\nzombies.best=120:BAA:2026-11-30,80:ZED:2026-11-29\n")
        let store = StateStore(directory: dir, now: 1)
        XCTAssertEqual(store.highScores("zombies.best", lowerIsBetter: false).entries.map(\.initials), ["BAA", "ZED"])
        XCTAssertEqual(store.best("zombies.best"), 120)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/highscores"), "moved with the start's write")
        XCTAssertEqual(readFile(dir + "/scores"), "# Boardwalk scores, written by the kiosk (key=value)\nzombies.best=120\n"
                       + "top.zombies.best=120:BAA:2026-11-30,80:ZED:2026-11-29\n")
        store.close(now: 2)
        XCTAssertEqual(StateStore(directory: dir, now: 3).highScores("zombies.best", lowerIsBetter: false).entries.count, 2)
        // A broken old file is moved aside; the tables in `scores` stand.
        try writeFile(dir + "/highscores", "zombies.best=1:ab:2026-11-30\n")
        let log = capturingLog { XCTAssertEqual(StateStore(directory: dir, now: 4).highScores("zombies.best", lowerIsBetter: false).entries.count, 2) }
        XCTAssertFalse(log.contains { $0.contains("corrupt") }, "scores holds the tables: the old file is not read")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/highscores"))
        try writeFile(dir + "/scores", "zombies.best=120\n")
        try writeFile(dir + "/highscores", "zombies.best=1:ab:2026-11-30\n")
        let broken = capturingLog { _ = StateStore(directory: dir, now: 5) }
        XCTAssertTrue(broken.contains { $0.contains("highscores is corrupt") && $0.contains("its tables are lost") }, "\(broken)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/highscores.corrupt-1"))
    }

    func testClearingOneTableOrAll() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 1)
        store.setScore("2048.best.4x4", 900, now: 1)
        store.setScore("zombies.best", 40, now: 1)
        store.addHighScore("2048.best.4x4", entry(900), lowerIsBetter: false, now: 1)
        store.addHighScore("zombies.best", entry(40), lowerIsBetter: false, now: 1)
        store.clearHighScores("2048.best.4x4", now: 2)
        XCTAssertTrue(store.highScores("2048.best.4x4", lowerIsBetter: false).entries.isEmpty)
        XCTAssertNil(store.best("2048.best.4x4"), "the variant's best goes with its table")
        XCTAssertEqual(store.highScores("zombies.best", lowerIsBetter: false).entries.count, 1)
        XCTAssertEqual(store.best("zombies.best"), 40)
        store.clearAllHighScores(now: 3)
        XCTAssertTrue(store.highScores("zombies.best", lowerIsBetter: false).entries.isEmpty)
        XCTAssertNil(store.best("zombies.best"))
    }

    func testACorruptTableFileIsMovedAside() throws {
        let dir = try makeTemporaryDirectory(self)
        for bad in ["top.zombies.best=12:ab:2026-12-01\n", "top.zombies.best=12:ABC\n", "top.zombies.best=x:ABC:2026-12-01\n",
                    "top.zombies.best=12:ABC:2026-12-01"] {
            try writeFile(dir + "/scores", bad)
            let log = capturingLog { _ = StateStore(directory: dir, now: 1) }
            XCTAssertTrue(log.contains { $0.contains("scores is corrupt") }, bad)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/scores.corrupt-4"))
        let store = StateStore(directory: dir, now: 2)
        XCTAssertTrue(store.highScores("zombies.best", lowerIsBetter: false).entries.isEmpty)
    }

    func testInitialsWrapAndTheTimeoutWaitsForTheLastInput() {
        var e = InitialsEntry(now: 0)
        XCTAssertEqual(e.initials, "AAA")
        e.change(by: -1, now: 1)
        XCTAssertEqual(e.initials, "ZAA")
        e.moveCursor(by: 1, now: 2)
        e.change(by: 2, now: 2)
        e.moveCursor(by: 5, now: 3)
        e.change(by: 1, now: 3)
        XCTAssertEqual(e.initials, "ZCB")
        XCTAssertFalse(e.isExpired(now: 3 + InitialsEntry.timeout - 0.1))
        XCTAssertTrue(e.isExpired(now: 3 + InitialsEntry.timeout))
        XCTAssertTrue(InitialsEntry(now: 10).isExpired(now: 10 + InitialsEntry.timeout), "untouched: AAA at the timeout")
    }

    // MARK: - The kiosk's flow

    private func finish(_ runner: HeadlessRunner, _ id: String, score: Int, variant: String) throws {
        runner.kiosk.open(game: id)
        let scene = try XCTUnwrap(runner.kiosk.shelf.openGames[id])
        scene.reportResult(score, variantKey: variant)
        runner.advance(HighScoreDesk.initialsDelay + 0.1)
    }

    func testANewHighScoreAsksForInitialsThenShowsTheTable() throws {
        let (runner, store) = try makeRunner(self)
        runner.kiosk.scores.today = { "2026-12-01" }
        var counters = stat()
        XCTAssertEqual(stat(store.path("counters"), &counters), 0)
        try finish(runner, "2048", score: 1234, variant: "2048.best.5x5")
        XCTAssertEqual(runner.kiosk.mode, .initials("2048"))
        for key in ["down", "right", "up", "up", "confirm", "up"] { runner.key(key) }
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .highScores("2048"))
        XCTAssertEqual(store.highScores("2048.best.5x5", lowerIsBetter: false).entries, [entry(1234, "ZCB")])
        let scores = readFile(store.path("scores")) ?? ""
        XCTAssertTrue(scores.contains("top.2048.best.5x5=1234:ZCB:2026-12-01") && scores.contains("2048.best.5x5=1234\n"),
                      "the entry and the best, written at once: \(scores)")
        // The SD card's wear: the game that set the record wrote one file; its play waits.
        var after = stat()
        XCTAssertEqual(stat(store.path("counters"), &after), 0)
        XCTAssertEqual(after.st_ino, counters.st_ino, "the counters were written with the table's entry")
        XCTAssertTrue(store.hasUnsavedChanges, "the play is written in its time")
        let table = try XCTUnwrap(runner.kiosk.screen.scene as? HighScoreScene)
        XCTAssertEqual(table.variant.key, "2048.best.5x5")
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .game("2048"), "OK goes back to the finished game")
        XCTAssertEqual(store.plays(game: "2048"), 1, "coming back is not another play")
    }

    /// Guess Picture's round ends by itself (each question's clock), and a score that makes
    /// the table asks for initials there too: a real play, not a reported result.
    func testAGuessPictureRoundEndsAndReachesInitials() throws {
        let (runner, store) = try makeRunner(self) { $0.kiosk.idleToMenuSeconds = 0 }
        runner.kiosk.scores.today = { "2026-12-01" }
        runner.kiosk.open(game: "guess_picture")
        let scene = try XCTUnwrap(runner.kiosk.shelf.openGames["guess_picture"] as? GuessPictureScene)
        // The first question right (800), then the clock runs out on the other nine.
        let game = scene.game
        let answer = try XCTUnwrap(game.question?.answer)
        var used: Set<Int> = []
        for character in answer {
            let index = try XCTUnwrap(game.options.indices.first { game.options[$0] == character && !used.contains($0) })
            used.insert(index)
            scene.tapOption(index)
        }
        runner.advance(1)
        XCTAssertEqual(scene.game.score, 800)
        runner.advance(45 * 9 + 1, step: 0.25)
        XCTAssertTrue(scene.game.isFinished)
        runner.advance(HighScoreDesk.initialsDelay + 0.1)
        XCTAssertEqual(runner.kiosk.mode, .initials("guess_picture"))
        runner.advance(InitialsEntry.timeout + 0.5)
        XCTAssertEqual(store.highScores("guess.best.en.round", lowerIsBetter: false).entries, [entry(800, "AAA")])
    }

    /// Beat Zombies keeps a table per difficulty: a classic game, played to its end, lands
    /// in classic's table and the menu shows classic's best; the operator's change to
    /// arcade shows arcade's, and arcade's next game uses arcade's rules.
    func testBeatZombiesKeepsATablePerDifficulty() throws {
        let (runner, store) = try makeRunner(self) { $0.zombies.difficulty = .classic; $0.kiosk.idleToMenuSeconds = 0 }
        runner.kiosk.scores.today = { "2026-12-01" }
        store.setScore("zombies.best", 500, now: 1)
        runner.kiosk.open(game: "beat_zombies")
        let scene = try XCTUnwrap(runner.kiosk.shelf.openGames["beat_zombies"] as? BeatZombiesScene)
        XCTAssertEqual(scene.game.rules, BeatZombiesDifficulty.classic.rules)
        // The stick's button beats the zombie nearest the house twice; then nobody plays,
        // the house fills and the zombies win.
        runner.advance(1)
        for _ in 0..<2 { runner.key("confirm"); runner.advance(1) }
        XCTAssertEqual(scene.game.score, 2)
        var seconds = 0.0
        while scene.game.phase == .playing && seconds < 900 { runner.advance(5, step: 0.25); seconds += 5 }
        XCTAssertEqual(scene.game.phase, .lost)
        runner.advance(HighScoreDesk.initialsDelay + 0.1)
        XCTAssertEqual(runner.kiosk.mode, .initials("beat_zombies"), "a first score makes the empty classic table")
        runner.advance(InitialsEntry.timeout + 0.5)
        XCTAssertEqual(store.highScores("zombies.best.classic", lowerIsBetter: false).entries, [entry(2, "AAA")])
        let table = try XCTUnwrap(runner.kiosk.screen.scene as? HighScoreScene)
        XCTAssertEqual(table.variant.key, "zombies.best.classic", "the table shown is the one the score went to")
        XCTAssertTrue(store.highScores("zombies.best", lowerIsBetter: false).entries.isEmpty, "arcade's table untouched")
        let game = try XCTUnwrap(runner.kiosk.catalog.game("beat_zombies"))
        XCTAssertEqual(game.best.variants.map(\.key), ["zombies.best.gentle", "zombies.best.classic", "zombies.best"])
        XCTAssertEqual(game.bestResult(runner.kiosk.shelf.storage, language: .english, settings: runner.kiosk.settings.gameSettings), 2)

        runner.kiosk.change("zombies.difficulty", to: "arcade")
        XCTAssertEqual(game.bestResult(runner.kiosk.shelf.storage, language: .english, settings: runner.kiosk.settings.gameSettings), 500)
        XCTAssertNil(runner.kiosk.shelf.openGames["beat_zombies"], "the classic game is closed; the next one is arcade")
        runner.kiosk.open(game: "beat_zombies")
        let next = try XCTUnwrap(runner.kiosk.shelf.openGames["beat_zombies"] as? BeatZombiesScene)
        XCTAssertEqual(next.game.rules, BeatZombiesDifficulty.arcade.rules)
    }

    func testAPlayerWhoWalksAwayKeepsAAA() throws {
        let (runner, store) = try makeRunner(self) { $0.kiosk.idleToMenuSeconds = 120 }
        try finish(runner, "memory", score: 14, variant: "memory.best.4x5")
        XCTAssertEqual(runner.kiosk.mode, .initials("memory"))
        runner.advance(InitialsEntry.timeout - 1)
        XCTAssertEqual(runner.kiosk.mode, .initials("memory"))
        runner.advance(1.2)
        XCTAssertEqual(runner.kiosk.mode, .highScores("memory"))
        XCTAssertEqual(store.highScores("memory.best.4x5", lowerIsBetter: true).entries.map(\.initials), ["AAA"])
        XCTAssertTrue(store.highScores("memory.best.4x4", lowerIsBetter: true).entries.isEmpty, "another grid's table")
    }

    func testIdleDuringInitialsStillKeepsTheEntry() throws {
        let (runner, store) = try makeRunner(self) { $0.kiosk.idleToMenuSeconds = 15 }
        try finish(runner, "beat_zombies", score: 30, variant: "zombies.best")
        runner.key("up")
        runner.advance(16)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertEqual(store.highScores("zombies.best", lowerIsBetter: false).entries.map(\.initials), ["BAA"])
    }

    func testAResultOffTheTableAsksNothing() throws {
        let (runner, store) = try makeRunner(self)
        for i in 0..<10 { store.addHighScore("zombies.best", entry(100 + i), lowerIsBetter: false, now: 1) }
        try finish(runner, "beat_zombies", score: 100, variant: "zombies.best")
        XCTAssertEqual(runner.kiosk.mode, .game("beat_zombies"), "a tie with the tenth is off the table")
        try finish(runner, "beat_zombies", score: 101, variant: "zombies.best")
        XCTAssertEqual(runner.kiosk.mode, .initials("beat_zombies"))
    }

    func testAttractModeShowsTablesWithEntries() throws {
        let (runner, store) = try makeRunner(self) { s in
            s.kiosk.enabledGames = ["2048", "memory"]
        }
        store.addHighScore("memory.best.4x4", entry(12, "MEM"), lowerIsBetter: true, now: 1)
        let items = Unattended.items(in: runner.kiosk)
        XCTAssertEqual(items.map(\.id), ["2048", "memory", "memory"])
        XCTAssertNil(items[0].table)
        XCTAssertEqual(items[2].table?.variant.key, "memory.best.4x4")
    }

    func testTheMenuTrophyOpensTheTables() throws {
        let (runner, store) = try makeRunner(self)
        store.addHighScore("zombies.best", entry(88, "ZOM"), lowerIsBetter: false, now: 1)
        let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
        let trophy = try XCTUnwrap(menu.trophy(for: "beat_zombies"))
        let r = trophy.rectInRoot
        runner.tap([(r.midX, r.midY)])
        XCTAssertEqual(runner.kiosk.mode, .highScores("beat_zombies"))
        XCTAssertEqual(store.plays(game: "beat_zombies"), 0, "the trophy doesn't open the game")
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }

    private func operatorMenu(_ runner: HeadlessRunner) throws {
        runner.key("service")
        let pin = try XCTUnwrap(runner.kiosk.screen.scene as? PINScene)
        for d in "1234" { pin.onKey?(String(d)) }
        pin.onKey?("OK")
        XCTAssertEqual(runner.kiosk.mode, .operatorMenu)
    }

    private func buttons(_ view: View, titled title: String) -> [Button] {
        var out: [Button] = []
        if let b = view as? Button, b.title == title, b.isVisibleInTree { out.append(b) }
        for v in view.subviews { out += buttons(v, titled: title) }
        return out
    }

    private func tap(_ runner: HeadlessRunner, _ view: View) {
        let r = view.rectInRoot
        runner.tap([(r.midX, r.midY)])
        runner.advance(0.4)
    }

    func testTheOperatorClearsOneTableOrAllAfterConfirming() throws {
        let (runner, store) = try makeRunner(self)
        store.addHighScore("zombies.best", entry(88, "ZOM"), lowerIsBetter: false, now: 1)
        store.addHighScore("2048.best.3x3", entry(300, "TRE"), lowerIsBetter: false, now: 1)
        store.addHighScore("2048.best.4x4", entry(400, "FOR"), lowerIsBetter: false, now: 1)
        try operatorMenu(runner)
        let service = try XCTUnwrap(runner.kiosk.screen.scene as? OperatorScene)
        tap(runner, try XCTUnwrap(buttons(service, titled: "Service").first))
        tap(runner, try XCTUnwrap(buttons(service, titled: "Tables").first))
        let page = try XCTUnwrap(runner.kiosk.screen.scene as? ScoreTablesScene)
        runner.frame()
        assertMatchesReference(runner.screenshot(), "operator-scores-800x480-en")
        // Each row starts at the variant in play (the zombies' at arcade, 2048's at 5x5);
        // 2048's row is the third, its ◀ picks 4x4.
        tap(runner, buttons(page, titled: "◀")[2])
        tap(runner, buttons(page, titled: "Clear")[2])
        XCTAssertEqual(store.highScores("2048.best.4x4", lowerIsBetter: false).entries.count, 1, "not before confirming")
        tap(runner, try XCTUnwrap(buttons(page, titled: "Cancel").first))
        XCTAssertEqual(store.highScores("2048.best.4x4", lowerIsBetter: false).entries.count, 1, "cancel keeps it")
        tap(runner, buttons(page, titled: "Clear")[2])
        let dialog = try XCTUnwrap(page.subviews.last as? Dialog)
        tap(runner, dialog.buttons[0])
        XCTAssertTrue(store.highScores("2048.best.4x4", lowerIsBetter: false).entries.isEmpty)
        XCTAssertEqual(store.highScores("2048.best.3x3", lowerIsBetter: false).entries.count, 1, "the other size stays")
        XCTAssertTrue(readFile(store.path("scores"))?.contains("2048.best.4x4") == false, "written at once")
        tap(runner, try XCTUnwrap(buttons(page, titled: "Clear all").first))
        tap(runner, try XCTUnwrap((page.subviews.last as? Dialog)?.buttons[0]))
        XCTAssertTrue(store.highScores("zombies.best", lowerIsBetter: false).entries.isEmpty)
        XCTAssertTrue(store.highScores("2048.best.3x3", lowerIsBetter: false).entries.isEmpty)
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .operatorMenu)
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }

    func testOperatorScoresPageInChinesePortrait() throws {
        let dir = try makeTemporaryDirectory(self)
        var settings = Settings()
        settings.kiosk.stateDir = dir
        settings.kiosk.dataDir = sourceRoot + "/data"
        settings.kiosk.language = .chinese
        settings.kiosk.operatorPIN = HeadlessRunner.tourPIN
        let store = StateStore(directory: dir, now: 1)
        store.addHighScore("memory.best.4x4", entry(12, "MEM"), lowerIsBetter: true, now: 1)
        let runner = try HeadlessRunner(settings: settings, width: 480, height: 800, store: store, catalog: .standard)
        runner.frameInterval = 1.0 / 20
        try operatorMenu(runner)
        runner.kiosk.showPage(.highScores)
        runner.advance(0.2)
        assertMatchesReference(runner.screenshot(), "operator-scores-480x800-zh")
        runner.kiosk.goHome()
    }

    // MARK: - Pictures

    private func sampleTable(_ variant: ScoreVariant) -> HighScoreTable {
        var table = HighScoreTable(lowerIsBetter: false)
        let names = ["ACE", "BOB", "CAT", "DAN", "EVE", "FOX", "GUS", "HAL", "IVY", "JOE"]
        for (i, n) in names.enumerated() { table.insert(entry(4096 - i * 311, n, "2026-11-\(10 + i)")) }
        return table
    }

    func testTableAndInitialsPictures() {
        for (width, height, language) in [(800, 480, Language.english), (480, 800, Language.chinese),
                                          (800, 480, Language.chinese), (480, 800, Language.english)] {
            let suffix = "\(width)x\(height)-\(language.rawValue)"
            let table = HighScoreScene(game: .game2048, language: language, variantKey: "2048.best.5x5", highlightRank: 2,
                                       interactive: true, doneTitle: language == .chinese ? "确定" : "OK",
                                       tables: sampleTable)
            let h = SceneHarness(width: width, height: height, scene: table)
            h.run(seconds: 0.1)
            h.check("highscores-\(suffix)")

            let initials = InitialsScene(detail: "2048 5×5 · 3502 · " + (language == .chinese ? "第 3 名" : "No. 3"),
                                         language: language, now: 100, clock: { 100 })
            let hi = SceneHarness(width: width, height: height, scene: initials)
            hi.key(.down)
            hi.key(.right)
            hi.run(seconds: 0.1)
            hi.check("initials-\(suffix)")
        }
    }
}
