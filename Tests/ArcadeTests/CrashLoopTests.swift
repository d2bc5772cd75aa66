import Foundation
import Glibc
import TestSupport
import XCTest
@testable import Arcade
@testable import Platform

/// A kiosk whose start fails every time (no screen) must neither restart at full speed nor
/// write the SD card on each try; counters from a hand-edited file must not trap.
final class CrashLoopTests: XCTestCase {
    func testBackoffDelaysGrowAndCap() {
        let delays = (1...10).map { StartBackoff.delay(failures: $0) }
        XCTAssertEqual(delays, [0, 1, 2, 4, 8, 16, 30, 30, 30, 30])
        XCTAssertEqual(StartBackoff.delay(failures: .max), StartBackoff.maximumDelay)
        XCTAssertEqual(StartBackoff.delay(failures: 0), 0)
    }

    func testBackoffCountsAcrossRestartsAndResetsOnFirstFrame() throws {
        let dir = try makeTemporaryDirectory(self)
        XCTAssertEqual(StartBackoff(directory: dir).recordFailure(), 0)
        // Each start is a new process: a new value reading the same file.
        XCTAssertEqual(StartBackoff(directory: dir).recordFailure(), 1)
        XCTAssertEqual(StartBackoff(directory: dir).recordFailure(), 2)
        XCTAssertEqual(StartBackoff(directory: dir).failures, 3)
        StartBackoff(directory: dir).recordSuccess()
        XCTAssertEqual(StartBackoff(directory: dir).failures, 0)
        XCTAssertEqual(StartBackoff(directory: dir).recordFailure(), 0)
        // A count at Int.max (a corrupted file) stays there.
        try Files.writeAtomically(dir + "/" + StartBackoff.fileName, text: "\(Int.max)\n")
        XCTAssertEqual(StartBackoff(directory: dir).recordFailure(), StartBackoff.maximumDelay)
        XCTAssertEqual(StartBackoff(directory: dir).failures, Int.max)
        try Files.writeAtomically(dir + "/" + StartBackoff.fileName, text: "garbage\n")
        XCTAssertEqual(StartBackoff(directory: dir).failures, 0)
        XCTAssertEqual(StartBackoff(directory: nil).recordFailure(), 0, "no runtime directory: nothing counted")
    }

    func testWaitEndsEarlyOnSIGTERM() {
        let started = monotonicSeconds()
        let thread = pthread_self()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { pthread_kill(thread, SIGTERM) }
        XCTAssertEqual(StartBackoff.wait(seconds: 20), SIGTERM)
        XCTAssertLessThan(monotonicSeconds() - started, 15, "a stop is not held up by the back-off")
    }

    /// The real command, as systemd runs it, on a machine with no such card: it fails
    /// before the first frame, writes nothing to the state directory, and counts the
    /// failure in the runtime directory.
    func testStartWithoutScreenWritesNoStateAndBacksOff() throws {
        let root = try makeTemporaryDirectory(self)
        let state = root + "/state", runtime = root + "/run"
        try Files.makeDirectories(state)
        try Files.makeDirectories(runtime)
        // A previous run that crashed: its marker stays until a run begins.
        try Files.writeAtomically(state + "/running", text: "1\n")
        let before = Files.listDirectory(state).sorted()
        setenv("RUNTIME_DIRECTORY", runtime, 1)
        defer { unsetenv("RUNTIME_DIRECTORY") }
        let arguments = ["--config", "/dev/null", "--state-dir", state,
                         "--set", "display.card=/nonexistent/card9", "--set", "display.tty=none"]
        XCTAssertEqual(Boardwalk.main(arguments), 1)
        XCTAssertEqual(Files.listDirectory(state).sorted(), before, "nothing written before the first frame")
        XCTAssertEqual(StartBackoff(directory: runtime).failures, 1)
        let started = monotonicSeconds()
        XCTAssertEqual(Boardwalk.main(arguments), 1)
        XCTAssertGreaterThanOrEqual(monotonicSeconds() - started, 0.9, "the second failure in a row waits")
        XCTAssertEqual(StartBackoff(directory: runtime).failures, 2)
        XCTAssertEqual(Files.listDirectory(state).sorted(), before)
    }

    func testStoreWritesNothingUntilTheRunBegins() throws {
        let dir = try makeTemporaryDirectory(self) + "/state"
        try Files.makeDirectories(dir)
        try Files.writeAtomically(dir + "/running", text: "1\n")
        let store = StateStore(directory: dir, now: 1, beginsRun: false)
        XCTAssertTrue(store.previousRunCrashed)
        store.setSetting("audio.volume", "40", now: 2)
        store.flush(now: 3)
        XCTAssertNil(store.nextFlushDeadline)
        XCTAssertEqual(Files.listDirectory(dir), ["running"])
        store.beginRun(now: 4)
        XCTAssertEqual(store.crashes, 1)
        XCTAssertEqual(store.counter("starts"), 1)
        XCTAssertEqual(Set(Files.listDirectory(dir)), ["running", "counters", "settings"])
        store.close(now: 5)
        XCTAssertEqual(Set(Files.listDirectory(dir)), ["counters", "settings"])
    }

    func testCountersAtIntMax() throws {
        let dir = try makeTemporaryDirectory(self) + "/state"
        try Files.makeDirectories(dir)
        try Files.writeAtomically(dir + "/counters", text: "starts=\(Int.max)\ncrashes=\(Int.max)\nplays.2048=\(Int.max)\nuptime_seconds=\(Int.max)\n")
        try Files.writeAtomically(dir + "/running", text: "1\n")
        let store = StateStore(directory: dir, now: 10)
        XCTAssertEqual(store.counter("starts"), Int.max)
        XCTAssertEqual(store.crashes, Int.max)
        store.countPlay(game: "2048", now: 11)
        store.increment("plays.2048", by: Int.max, now: 11)
        XCTAssertEqual(store.plays(game: "2048"), Int.max)
        XCTAssertEqual(store.totalUptime(now: 1e300), Int.max)
        store.close(now: 12)
        XCTAssertEqual(StateStore(directory: dir, now: 0).counter("starts"), Int.max)
    }
}

/// "Exit to console" leaves the kiosk stopped: the unit must not restart on its exit status.
final class ExitToConsoleTests: XCTestCase {
    func testTheUnitStaysStoppedAndStartsAConsole() throws {
        let unit = try String(contentsOfFile: sourceRoot + "/systemd/boardwalk.service", encoding: .utf8)
        let lines = unit.split(separator: "\n").map(String.init)
        let status = String(Boardwalk.exitToConsoleStatus)
        XCTAssertTrue(lines.contains("RestartPreventExitStatus=\(status)"), "systemd would restart the kiosk at once")
        XCTAssertTrue(lines.contains("SuccessExitStatus=\(status)"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("ExecStopPost=+") && $0.contains("\"$$EXIT_STATUS\" = \(status)")
                                       && $0.contains("boardwalk-console.service") })
        let console = try String(contentsOfFile: sourceRoot + "/systemd/boardwalk-console.service", encoding: .utf8)
        XCTAssertTrue(console.contains("Conflicts=boardwalk.service"), "starting the kiosk again must stop the console")
        // Nothing in the unit may make the state partition a requirement (a broken one
        // would keep the kiosk from starting).
        for key in ["StateDirectory=", "WorkingDirectory=", "RequiresMountsFor="] {
            XCTAssertFalse(lines.contains { $0.hasPrefix(key) }, key)
        }
        XCTAssertTrue(lines.contains { $0.hasPrefix("MemoryMax=") })
    }
}
