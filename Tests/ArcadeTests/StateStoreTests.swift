import Foundation
import Glibc
import TestSupport
import XCTest
@testable import Arcade
@testable import Platform

final class StateStoreTests: XCTestCase {
    func testScoresSettingsCountersSurviveARestart() throws {
        let dir = try makeTemporaryDirectory(self) + "/state"
        do {
            let store = StateStore(directory: dir, now: 100)
            XCTAssertFalse(store.previousRunCrashed)
            store.setScore("2048.5x5", 1200, now: 101)
            store.setScore("memory.4x4", 31, now: 102)
            store.setSetting("audio.volume", "55", now: 103)
            store.setSetting("2048.theme", "ocean", now: 103)
            store.countPlay(game: "2048", now: 104)
            store.countPlay(game: "2048", now: 105)
            store.close(now: 160)
        }
        XCTAssertFalse(Files.exists(dir + "/running"), "a clean exit removes the marker")
        let store = StateStore(directory: dir, now: 0)
        XCTAssertFalse(store.previousRunCrashed)
        XCTAssertEqual(store.best("2048.5x5"), 1200)
        XCTAssertEqual(store.best("memory.4x4"), 31)
        XCTAssertEqual(store.setting("2048.theme"), "ocean")
        XCTAssertEqual(store.plays(game: "2048"), 2)
        XCTAssertEqual(store.counter("starts"), 2)
        XCTAssertEqual(store.crashes, 0)
        XCTAssertEqual(store.totalUptime(now: 10), 70)
        var settings = Settings()
        XCTAssertEqual(store.applySettings(to: &settings), [])
        XCTAssertEqual(settings.audio.volume, 55)
        store.resetScores(game: "2048", now: 1)
        XCTAssertNil(store.best("2048.5x5"))
        XCTAssertEqual(store.best("memory.4x4"), 31)
        store.close(now: 20)
    }

    func testUncleanExitIsCountedAsACrash() throws {
        let dir = try makeTemporaryDirectory(self)
        do {
            let store = StateStore(directory: dir, now: 0)
            store.setScore("zombies", 5, now: 1)
            // No close(): as if killed.
            _ = store
        }
        XCTAssertTrue(Files.exists(dir + "/running"))
        let store = StateStore(directory: dir, now: 0)
        XCTAssertTrue(store.previousRunCrashed)
        XCTAssertEqual(store.crashes, 1)
        store.close(now: 1)
        let again = StateStore(directory: dir, now: 0)
        XCTAssertFalse(again.previousRunCrashed)
        XCTAssertEqual(again.crashes, 1)
        again.close(now: 1)
    }

    func testWritesAreCoalesced() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 0)
        store.flushDelays[.scores] = 2
        XCTAssertFalse(store.hasUnsavedChanges)
        // A score rising every frame for a second: nothing hits the disk yet.
        var now = 1.0
        for score in 1...60 {
            store.setScore("beat_zombies", score, now: now)
            store.flushIfDue(now: now)
            now += 1.0 / 60
        }
        XCTAssertTrue(store.hasUnsavedChanges)
        XCTAssertFalse(readFile(dir + "/scores")?.contains("beat_zombies") ?? false)
        XCTAssertEqual(store.nextFlushDeadline, 3.0)
        store.flushIfDue(now: 3.0)
        XCTAssertFalse(store.hasUnsavedChanges)
        XCTAssertTrue(readFile(dir + "/scores")?.contains("beat_zombies=60\n") ?? false)
        store.close(now: 4)
    }

    /// The SD card's wear: a game writes at most one page. Its play, play time and rising
    /// best wait (`File.delay`); a record's table entry writes `scores` alone, best and
    /// table in one file; a coin meanwhile writes `counters` alone.
    func testAGameWritesOnePageACoinItsCounters() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 0)
        func inode(_ name: String) -> UInt? {
            var st = stat()
            return stat(dir + "/" + name, &st) == 0 ? UInt(st.st_ino) : nil
        }
        let started = inode("counters")
        store.countPlay(game: "zombies", now: 10)
        for score in 1...50 { store.setScore("zombies.best", score, now: 10 + Double(score)) }
        store.increment(CounterKey.playTime("zombies"), by: 60, now: 70)
        XCTAssertEqual(store.nextFlushDeadline, 310, "the game's changes wait \(StateStore.File.counters.delay) s")
        store.flushIfDue(now: 309)
        XCTAssertEqual(inode("counters"), started)
        XCTAssertNil(inode("scores"))
        store.addHighScore("zombies.best", HighScoreEntry(score: 50, initials: "ZED", date: "2026-12-01"), lowerIsBetter: false, now: 75)
        store.flush(.scores, now: 75)
        XCTAssertEqual(readFile(dir + "/scores"), "# Boardwalk scores, written by the kiosk (key=value)\nzombies.best=50\n"
                       + "top.zombies.best=50:ZED:2026-12-01\n")
        XCTAssertEqual(inode("counters"), started, "the record wrote one file")
        let scores = inode("scores")
        store.setScore("zombies.best", 51, now: 80)
        store.increment(CounterKey.coins, now: 80)
        store.flush(.counters, now: 80)
        XCTAssertNotEqual(inode("counters"), started)
        XCTAssertEqual(inode("scores"), scores, "a coin writes its counters alone")
        XCTAssertEqual(StateStore(directory: dir, now: 0, beginsRun: false).plays(game: "zombies"), 1, "the play went with the coin")
        store.flushIfDue(now: 380)
        XCTAssertFalse(store.hasUnsavedChanges)
        XCTAssertTrue(readFile(dir + "/scores")?.contains("zombies.best=51\n") ?? false)
        store.close(now: 400)
    }

    /// The SD card's wear: a kiosk idle in the attract mode for hours writes nothing; the
    /// uptime goes out with the next real write (a coin here) and with the clean exit.
    func testIdleHoursWriteNothingUptimeRidesAlong() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 0)
        let counters = dir + "/counters"
        var before = stat()
        XCTAssertEqual(stat(counters, &before), 0)
        var now = 0.0
        while now < 6 * 3600 {
            now += 7
            store.flushIfDue(now: now)
            XCTAssertNil(store.nextFlushDeadline, "a write falls due at \(now) s with nothing changed")
        }
        var after = stat()
        XCTAssertEqual(stat(counters, &after), 0)
        XCTAssertEqual(after.st_ino, before.st_ino, "the counters were rewritten while idle")
        store.increment(CounterKey.coins, now: now)
        store.flush(now: now)
        XCTAssertEqual(StateStore(directory: dir, now: now).counter(CounterKey.uptime), Int(now))
        store.close(now: now + 60)
        XCTAssertEqual(StateStore(directory: dir, now: now).counter(CounterKey.uptime), Int(now) + 60)
    }

    func testCorruptFileIsMovedAsideAndStartedFresh() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/scores", "# Boardwalk scores\n2048.5x5=900\n\u{1}garbage line\n")
        try writeFile(dir + "/scores.corrupt-1", "an older one\n")
        try writeFile(dir + "/counters", "plays.2048=3\nstarts=-2\n")
        try writeFile(dir + "/settings", "audio.volume=40\nkiosk.lang")
        var store: StateStore!
        let logged = capturingLog { store = StateStore(directory: dir, now: 0) }
        XCTAssertNil(store.best("2048.5x5"))
        XCTAssertEqual(store.counter("starts"), 1)
        XCTAssertNil(store.setting("audio.volume"))
        XCTAssertEqual(readFile(dir + "/scores.corrupt-2"), "# Boardwalk scores\n2048.5x5=900\n\u{1}garbage line\n")
        XCTAssertEqual(readFile(dir + "/scores.corrupt-1"), "an older one\n", "earlier evidence kept")
        XCTAssertNotNil(readFile(dir + "/counters.corrupt-1"))
        XCTAssertNotNil(readFile(dir + "/settings.corrupt-1"))
        XCTAssertTrue(logged.contains { $0.hasPrefix("<4>state: \(dir)/scores is corrupt (line 3: no '='); moved to \(dir)/scores.corrupt-2") }, "\(logged)")
        XCTAssertTrue(logged.contains { $0.contains("settings is corrupt (truncated") })
        // Fresh files were written and load cleanly.
        store.setScore("2048.5x5", 10, now: 1)
        store.close(now: 2)
        let again = StateStore(directory: dir, now: 0)
        XCTAssertEqual(again.best("2048.5x5"), 10)
        XCTAssertEqual(again.counter("starts"), 2)
        XCTAssertFalse(Files.exists(dir + "/scores.corrupt-3"))
        again.close(now: 1)
    }

    func testEmptyAndBinaryFilesAreCorrupt() {
        XCTAssertEqual(try? StateStore.parse([], file: .scores).get(), nil)
        XCTAssertEqual(try? StateStore.parse([0x61, 0x3D, 0x31, 0x00, 0x0A], file: .scores).get(), nil)
        XCTAssertEqual(try? StateStore.parse([0xFF, 0xFE, 0x0A], file: .settings).get(), nil)
        XCTAssertEqual(try? StateStore.parse(Array("a=1\n\n# c\nb=2\n".utf8), file: .scores).get(), ["a": "1", "b": "2"])
        XCTAssertEqual(try? StateStore.parse(Array("a=x\n".utf8), file: .settings).get(), ["a": "x"])
        XCTAssertEqual(try? StateStore.parse(Array("a=x\n".utf8), file: .scores).get(), nil)
    }

    func testLeftoverTempFromAnInterruptedWriteIsIgnored() throws {
        let dir = try makeTemporaryDirectory(self)
        do {
            let store = StateStore(directory: dir, now: 0)
            store.setScore("memory.4x4", 42, now: 0)
            store.close(now: 1)
        }
        // What a kill between write and rename leaves: a half-written temp beside the old file.
        try writeFile(dir + "/scores.tmp", "# Boardwalk scores\nmemory.4x4=9")
        let store = StateStore(directory: dir, now: 0)
        XCTAssertEqual(store.best("memory.4x4"), 42)
        XCTAssertFalse(Files.exists(dir + "/scores.tmp"))
        store.close(now: 1)
    }

    /// A child process rewrites the file over and over and is SIGKILLed at a random
    /// moment: whatever the moment, the file is one whole version, never a mix.
    func testKilledWriterLeavesAWholeFile() throws {
        let dir = try makeTemporaryDirectory(self)
        let path = dir + "/scores"
        func version(_ n: Int) -> String {
            var text = "# Boardwalk scores\n"
            for i in 0..<2000 { text += "game\(i).v=\(n)\n" }
            return text
        }
        let versions = (0..<2).map(version)
        let bytes = versions.map { Array($0.utf8) }
        try Files.writeAtomically(path, text: versions[0])
        var seen: [Int] = []
        for round in 0..<12 {
            let child = fork()
            XCTAssertGreaterThanOrEqual(child, 0)
            if child == 0 {
                // Only system calls from here on: no test framework in the child.
                var n = 0
                while true {
                    n += 1
                    try? Files.writeAtomically(path, bytes: bytes[n % 2])
                }
            }
            usleep(UInt32(2_000 + (round * 3_517) % 25_000))
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            let text = try XCTUnwrap(readFile(path))
            let which = versions.firstIndex(of: text)
            XCTAssertNotNil(which, "round \(round): the file is neither version (\(text.utf8.count) bytes)")
            if let which { seen.append(which) }
            let store = StateStore(directory: dir, now: 0)
            XCTAssertEqual(store.best("game0.v").map { $0 == 0 || $0 == 1 }, true)
            XCTAssertFalse(Files.exists(path + ".tmp"), "the interrupted temp is cleaned up")
            store.close(now: 0)
        }
        // Which version survived depends on where each kill landed; both are fine.
        print("killed-writer rounds ended on versions \(seen)")
    }

    func testUnwritableDirectoryStillWorksInMemory() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/file", "not a directory\n")
        var store: StateStore!
        let logged = capturingLog { store = StateStore(directory: dir + "/file/state", now: 0) }
        XCTAssertTrue(logged.contains { $0.hasPrefix("<3>state: cannot write") && $0.contains("will not be kept") })
        XCTAssertFalse(store.isWritable)
        store.setScore("2048.4x4", 5, now: 1)
        XCTAssertEqual(store.best("2048.4x4"), 5)
        XCTAssertEqual(store.nextFlushDeadline, store.retryDelay, "tried again, not given up")
        let again = capturingLog { store.flush(now: 2) }
        XCTAssertFalse(again.contains { $0.contains("cannot write") }, "said once, not at every retry")
        store.close(now: 3)
    }

    /// A state partition that comes back (freed, remounted read-write, mounted late) takes
    /// everything kept in memory meanwhile, without a restart.
    func testAStoreThatCouldNotWriteSavesOnceItCan() throws {
        let dir = try makeTemporaryDirectory(self)
        let stateDir = dir + "/state"
        try writeFile(stateDir, "a file where the directory should be\n")
        let store = StateStore(directory: stateDir, now: 0)
        XCTAssertFalse(store.isWritable)
        store.increment(CounterKey.coins, now: 1)
        store.setScore("2048.4x4", 64, now: 1)
        store.flushIfDue(now: 30)
        XCTAssertFalse(store.isWritable, "before the retry is due nothing changes")

        unlink(stateDir)
        let logged = capturingLog { store.flushIfDue(now: 0 + store.retryDelay) }
        XCTAssertTrue(store.isWritable)
        XCTAssertTrue(logged.contains { $0.contains("takes writes again") })
        XCTAssertTrue(Files.exists(stateDir + "/" + StateStore.markerName), "the run's marker is written with the first files")
        let reread = StateStore(directory: stateDir, now: 100, beginsRun: false)
        XCTAssertEqual(reread.counter(CounterKey.coins), 1)
        XCTAssertEqual(reread.counter(CounterKey.starts), 1)
        XCTAssertEqual(reread.best("2048.4x4"), 64)
        XCTAssertTrue(reread.previousRunCrashed, "the marker says this run is still going")
        store.close(now: 101)
        XCTAssertFalse(Files.exists(stateDir + "/" + StateStore.markerName))
    }

    func testBadKeysAndValuesAreRefused() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 0)
        XCTAssertFalse(store.setSetting("bad key", "1", now: 0))
        XCTAssertFalse(store.setSetting("kiosk.language", "en\nscores=1", now: 0))
        XCTAssertTrue(store.setSetting("display.rotation", "45", now: 0))
        var settings = Settings()
        let problems = store.applySettings(to: &settings)
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(settings.display.rotation, .deg0)
        store.setScore("2048", -5, now: 0)
        XCTAssertNil(store.best("2048"), "a negative score is not kept")
        store.close(now: 1)
    }
}
