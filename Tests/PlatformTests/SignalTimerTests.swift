import TestSupport
import XCTest
import Glibc
@testable import Platform

final class SignalFDTests: XCTestCase {
    private func isBlocked(_ signal: Int32) -> Bool {
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        return sigismember(&current, signal) == 1
    }

    func testRaisedSignalIsReadAsData() throws {
        XCTAssertFalse(isBlocked(SIGUSR1))
        do {
            let signals = try SignalFD(signals: [SIGUSR1, SIGUSR2])
            XCTAssertTrue(isBlocked(SIGUSR1))
            XCTAssertEqual(try signals.read(), [])
            // raise() targets this thread, which blocks it: the signal waits in the fd.
            XCTAssertEqual(raise(SIGUSR2), 0)
            XCTAssertEqual(raise(SIGUSR1), 0)
            let loop = EventLoop()
            var got: [Int32] = []
            loop.watch(fd: signals.fd) { _ in got += (try? signals.read()) ?? [] }
            XCTAssertEqual(try loop.runOnce(timeout: 1), 1)
            XCTAssertEqual(Set(got), [SIGUSR1, SIGUSR2])
            XCTAssertEqual(try signals.read(), [])
        }
        XCTAssertFalse(isBlocked(SIGUSR1), "the mask is restored when the owner goes")
    }

    func testPendingSignalIsDroppedNotDeliveredAtTeardown() throws {
        do {
            let signals = try SignalFD(signals: [SIGUSR2])
            XCTAssertEqual(raise(SIGUSR2), 0)
            _ = signals
        }
        // Still alive: the pending SIGUSR2 (default action: terminate) was drained.
        XCTAssertFalse(isBlocked(SIGUSR2))
    }

    func testNames() {
        XCTAssertEqual(SignalFD.name(SIGTERM), "SIGTERM")
        XCTAssertEqual(SignalFD.name(SIGHUP), "SIGHUP")
    }
}

final class TimerFDTests: XCTestCase {
    func testOneShotFiresOnceThroughTheLoop() throws {
        let timer = try TimerFD()
        XCTAssertNil(try timer.remaining())
        try timer.arm(after: 0.02)
        XCTAssertTrue(timer.isArmed)
        XCTAssertNotNil(try timer.remaining())
        XCTAssertEqual(try timer.read(), 0, "not yet expired")
        let loop = EventLoop()
        var expirations: UInt64 = 0
        loop.watch(fd: timer.fd) { _ in expirations += (try? timer.read()) ?? 0 }
        let start = monotonicSeconds()
        XCTAssertEqual(try loop.runOnce(timeout: 2), 1)
        XCTAssertGreaterThanOrEqual(monotonicSeconds() - start, 0.015)
        XCTAssertEqual(expirations, 1)
        XCTAssertFalse(timer.isArmed)
        XCTAssertEqual(try loop.runOnce(timeout: 0.05), 0, "a one-shot does not fire again")
    }

    func testPeriodicCountsMissedExpirations() throws {
        let timer = try TimerFD()
        let start = monotonicSeconds()
        try timer.arm(after: 0.01, interval: 0.01)
        usleep(75_000)
        let count = try timer.read()
        let elapsed = monotonicSeconds() - start
        // On a busy machine the sleep runs long; the count follows the clock, not the sleep.
        XCTAssertGreaterThanOrEqual(count, 6)
        XCTAssertLessThanOrEqual(Double(count), elapsed / 0.01 + 1)
        XCTAssertTrue(timer.isArmed)
        try timer.disarm()
        XCTAssertFalse(timer.isArmed)
        XCTAssertNil(try timer.remaining())
        usleep(20_000)
        XCTAssertEqual(try timer.read(), 0)
    }

    func testAbsoluteDeadlineInThePastFiresAtOnce() throws {
        let timer = try TimerFD()
        try timer.arm(at: monotonicSeconds() - 1)
        var pfd = pollfd(fd: timer.fd.rawValue, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pfd, 1, 1000), 1)
        XCTAssertEqual(try timer.read(), 1)
    }
}

final class ShutdownByTERMTests: XCTestCase {
    /// The kiosk's shape: a child process runs the loop with a signalfd and a timer; the
    /// parent sends it SIGTERM as systemd would. The child must leave its loop and exit 0
    /// (not die of the signal).
    func testSIGTERMEndsTheLoopCleanly() throws {
        let forked = forkChild { ready in
            var code: Int32 = 3
            do {
                let signals = try SignalFD()
                let frames = try TimerFD()
                let loop = EventLoop()
                var ticks: UInt64 = 0
                loop.watch(fd: signals.fd) { _ in
                    if (try? signals.read())?.contains(SIGTERM) == true {
                        code = ticks > 0 ? 0 : 4
                        loop.stop()
                    }
                }
                loop.watch(fd: frames.fd) { _ in ticks += (try? frames.read()) ?? 0 }
                try frames.arm(after: 0.005, interval: 0.005)
                loop.after(10) { loop.stop() }
                // Tell the parent the signals are blocked, after a few frames.
                loop.after(0.03) {
                    var byte: UInt8 = 1
                    _ = write(ready, &byte, 1)
                }
                try loop.run()
            } catch {
                code = 2
            }
            _exit(code)
        }
        let (child, ready) = try XCTUnwrap(forked)
        var byte: UInt8 = 0
        XCTAssertEqual(read(ready, &byte, 1), 1)
        close(ready)
        XCTAssertEqual(kill(child, SIGTERM), 0)
        var status: Int32 = 0
        XCTAssertEqual(waitpid(child, &status, 0), child)
        XCTAssertEqual(status & 0x7f, 0, "the child was killed by signal \(status & 0x7f)")
        XCTAssertEqual((status >> 8) & 0xff, 0, "exit code")
    }
}
