import Foundation
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

/// The books: play time per game, coins and credits, counters after a simulated power
/// cut, the CSV (command line and USB stick), a reset, watchdog restarts, the page.
final class BookkeepingTests: XCTestCase {
    func testPlayTimeAndAverageGameLength() throws {
        let (runner, store) = try makeRunner(self) { $0.kiosk.idleToMenuSeconds = 0 }
        runner.kiosk.open(game: "2048")
        runner.advance(60)
        runner.kiosk.goHome()
        runner.kiosk.open(game: "2048")
        runner.advance(30)
        runner.kiosk.goHome()
        runner.advance(100)
        XCTAssertEqual(store.counter("playtime.2048"), 90, "time in the game only, not in the menu")
        let rows = runner.kiosk.books.rows
        XCTAssertEqual(rows.first { $0.item == "plays" && $0.game == "2048" }?.value, 2)
        XCTAssertEqual(rows.first { $0.item == "average_game_seconds" && $0.game == "2048" }?.value, 45)
        XCTAssertEqual(rows.first { $0.item == "plays" && $0.game == "memory" }?.value, 0)
        XCTAssertEqual(rows.first { $0.item == "average_game_seconds" && $0.game == "memory" }?.value, 0)
    }

    func testCountersSurviveAPowerCut() throws {
        let dir = try makeTemporaryDirectory(self)
        do {
            var settings = Settings()
            settings.kiosk.stateDir = dir
            settings.kiosk.dataDir = sourceRoot + "/data"
            settings.kiosk.playMode = .credits
            let store = StateStore(directory: dir, now: 1)
            let runner = try HeadlessRunner(settings: settings, width: 800, height: 480, store: store, catalog: .standard)
            runner.frameInterval = 1.0 / 20
            for _ in 0..<3 {
                runner.kiosk.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now)
            }
            runner.kiosk.open(game: "memory")
            // The power goes: no close(), no flush; whatever is on disk now is what there is.
            let copy = try makeTemporaryDirectory(self)
            for name in ["counters", "running"] {
                try writeFile(copy + "/" + name, readFile(dir + "/" + name) ?? "")
            }
            let after = StateStore(directory: copy, now: 0)
            XCTAssertEqual(after.counter("coins"), 3, "every coin was on disk the moment it dropped")
            XCTAssertEqual(after.counter("credits.bought"), 3)
            XCTAssertEqual(after.counter("credits.used"), 1, "the play's credit was taken on disk")
            XCTAssertEqual(after.counter(CounterKey.creditBalance), 2)
            XCTAssertEqual(after.counter("crashes"), 1, "the cut counts as an unclean exit")
            XCTAssertEqual(after.counter("starts"), 2)
            withExtendedLifetime(runner) {}
        }
    }

    func testCSVAndTheCommandLine() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 1)
        store.countPlay(game: "memory", now: 1)
        store.increment("playtime.memory", by: 125, now: 1)
        store.increment("coins", by: 7, now: 1)
        store.close(now: 11)
        let books = try Bookkeeping.read(stateDirectory: dir, games: ["memory"]).get()
        let csv = books.csv(exportedAt: 0)
        XCTAssertTrue(csv.hasPrefix("item,game,value\nplays,memory,1\nplay_time_seconds,memory,125\naverage_game_seconds,memory,125\ncoins,,7\n"), csv)
        XCTAssertTrue(csv.contains("\nuptime_seconds,,10\nstarts,,1\ncrashes,,0\nwatchdog_restarts,,0\nlast_reset,,never\n"), csv)
        // The command reads the books without touching them (no start counted, no marker).
        let before = readFile(dir + "/counters")
        XCTAssertEqual(Bookkeeping.commandMain(["--csv", "--state-dir", dir], games: ["memory"]), 0)
        XCTAssertEqual(readFile(dir + "/counters"), before)
        XCTAssertFalse(Files.exists(dir + "/running"))
        XCTAssertEqual(Bookkeeping.commandMain(["--state-dir", dir + "/nothing"], games: []), 1)
        XCTAssertEqual(Bookkeeping.commandMain(["--bogus"], games: []), 2)
    }

    func testUSBSticksFromTheMountTable() throws {
        let mounts = """
        /dev/mmcblk0p2 / ext4 rw,noatime 0 0
        /dev/mmcblk0p1 /boot/firmware vfat rw 0 0
        /dev/mmcblk0p3 /var/lib/boardwalk ext4 rw 0 0
        /dev/sda2 /boot/efi vfat rw 0 0
        /dev/sdb1 /media/USB\\040STICK vfat rw,uid=999 0 0
        /dev/sdc1 /media/strangers-ext4 ext4 rw 0 0
        /dev/sdd1 /media/ntfs ntfs3 rw 0 0
        tmpfs /run tmpfs rw 0 0
        """
        XCTAssertEqual(MountedSticks.mountPoints(mounts), ["/media/USB STICK"], "FAT and exFAT only")
        // A Pi booted from a USB disk: its own partitions are never a stick.
        let usbBoot = """
        /dev/sda2 / ext4 ro 0 0
        /dev/sda3 /var/lib/boardwalk vfat rw 0 0
        /dev/sdb1 /run/boardwalk-usb/sdb1 exfat rw 0 0
        """
        XCTAssertEqual(MountedSticks.mountPoints(usbBoot), ["/run/boardwalk-usb/sdb1"])
        XCTAssertEqual(MountedSticks.disk(ofPartition: "/dev/mmcblk0p5"), "mmcblk0")
        XCTAssertEqual(MountedSticks.disk(ofPartition: "/dev/nvme0n1p2"), "nvme0n1")
        XCTAssertEqual(MountedSticks.disk(ofPartition: "/dev/sdb12"), "sdb")
        let stick = try makeTemporaryDirectory(self)
        let epoch = 1_796_000_000
        let path = try Bookkeeping.exportToStick("item,game,value\n", mounts: "/dev/sdc1 \(stick) exfat rw 0 0\n", epoch: epoch).get()
        XCTAssertTrue(path.hasPrefix(stick + "/boardwalk-bookkeeping-"), path)
        XCTAssertTrue(path.hasSuffix(WallClock(epochSeconds: epoch).isoMinute.replacing(" ", with: "-").replacing(":", with: "") + ".csv"))
        XCTAssertEqual(readFile(path), "item,game,value\n")
        guard case .failure(let problem) = Bookkeeping.exportToStick("x", mounts: "", epoch: epoch) else { return XCTFail("no stick") }
        XCTAssertEqual(problem.description, "no USB stick is mounted")
    }

    func testResetKeepsCreditsAndSaysWhen() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 1)
        var settings = Settings.Kiosk()
        settings.playMode = .credits
        var meter = CreditMeter(store: store, settings: settings)
        meter.insertCoin(now: 2)
        meter.insertCoin(now: 2)
        store.countPlay(game: "2048", now: 3)
        store.resetBookkeeping(now: 100, epoch: 1_796_000_000)
        XCTAssertEqual(store.counter("coins"), 0)
        XCTAssertEqual(store.plays(game: "2048"), 0)
        XCTAssertEqual(store.counter(CounterKey.creditBalance), 2, "the players' credits stay")
        XCTAssertEqual(store.totalUptime(now: 160), 60, "uptime counts from the reset")
        let books = try Bookkeeping.read(stateDirectory: dir, games: ["2048"]).get()
        XCTAssertEqual(books.counters[CounterKey.booksResetAt], 1_796_000_000, "written at once")
    }

    /// The unit's own ExecStopPost line (systemd's `$$` unescaped, the state directory
    /// moved to a temporary one), as systemd runs it after a run ends.
    func runUnitsExitNote(result: String, stateDirectory dir: String) throws {
        let unit = try String(contentsOfFile: sourceRoot + "/systemd/boardwalk.service", encoding: .utf8)
        let line = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStopPost=") && $0.contains("last-exit") })
        let shell = try XCTUnwrap(line.range(of: "/bin/sh -c '"), "a shell line: \(line)")
        XCTAssertTrue(line.hasSuffix("'"), "a shell line: \(line)")
        XCTAssertFalse(line.hasPrefix("ExecStopPost=-+") && !line.contains("--reuid=boardwalk"),
                       "outside the sandbox, root must not write into the kiosk's own directory")
        let script = String(line[shell.upperBound...].dropLast())
            .replacingOccurrences(of: "$$", with: "$")
            .replacingOccurrences(of: StateStore.defaultDirectory, with: dir)
        let sh = Process()
        sh.executableURL = URL(fileURLWithPath: "/bin/sh")
        sh.arguments = ["-c", script]
        sh.environment = ["SERVICE_RESULT": result, "PATH": "/usr/bin:/bin"]
        try sh.run()
        sh.waitUntilExit()
        XCTAssertEqual(sh.terminationStatus, 0)
    }

    func testWatchdogRestartsAreCounted() throws {
        let dir = try makeTemporaryDirectory(self)
        try runUnitsExitNote(result: "watchdog", stateDirectory: dir)
        let store = StateStore(directory: dir, now: 1)
        store.countLastExit(now: 1)
        XCTAssertEqual(store.counter(CounterKey.watchdogRestarts), 1)
        XCTAssertFalse(Files.exists(dir + "/last-exit"), "read once")
        // A crash or a clean stop is no watchdog restart.
        for result in ["signal", "success"] {
            try runUnitsExitNote(result: result, stateDirectory: dir)
            store.countLastExit(now: 2)
            XCTAssertFalse(Files.exists(dir + "/last-exit"))
        }
        XCTAssertEqual(store.counter(CounterKey.watchdogRestarts), 1)
    }

    func testThePages() throws {
        for (width, height, language) in [(800, 480, Language.english), (480, 800, Language.chinese),
                                          (800, 480, Language.chinese), (480, 800, Language.english)] {
            let (runner, _) = try makeRunner(self, width: width, height: height, configure: { settings in
                settings.kiosk.language = language
                settings.kiosk.playMode = .credits
            }, prepare: { store in
                for (game, plays, seconds) in [("beat_zombies", 31, 4030), ("guess_picture", 12, 2900), ("2048", 20, 9000),
                                               ("memory", 44, 5100)] {
                    store.increment(CounterKey.plays(game), by: plays, now: 1)
                    store.increment(CounterKey.playTime(game), by: seconds, now: 1)
                }
                for (key, value) in [("coins", 120), ("credits.bought", 120), ("credits.used", 107), ("credits.balance", 13),
                                     ("crashes", 2), ("watchdog_restarts", 1), ("starts", 8)] {
                    store.setCounter(key, value, now: 1)
                }
                store.setCounter(CounterKey.booksResetAt, 0, now: 1)
            })
            runner.kiosk.showPage(.books)
            runner.advance(0.2)
            let suffix = "\(width)x\(height)-\(language.rawValue)"
            XCTAssertTrue(runner.kiosk.screen.scene is BooksPage)
            // Uptime is this run's few seconds: shown as 0 h 0 min.
            assertMatchesReference(runner.screenshot(), "bookkeeping-\(suffix)")
            runner.kiosk.showPage(.coins)
            runner.advance(0.2)
            assertMatchesReference(runner.screenshot(), "operator-coins-\(suffix)")
            runner.kiosk.goHome()
        }
    }

    func testTheCoinsPageChangesTheSettings() throws {
        let (runner, store) = try makeRunner(self)
        let k = runner.kiosk
        k.playMode = .credits
        k.creditsPerPlay = 2
        k.coinsPerCredit = 3
        XCTAssertEqual(store.setting("kiosk.mode"), "credits")
        XCTAssertEqual(store.setting("kiosk.credits_per_play"), "2")
        XCTAssertEqual(store.setting("kiosk.coins_per_credit"), "3")
        for _ in 0..<3 { k.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now) }
        XCTAssertEqual(k.credits, 1, "three coins a credit, at once")
        k.open(game: "memory")
        XCTAssertEqual(k.mode, .menu, "two credits a play")
    }
}
