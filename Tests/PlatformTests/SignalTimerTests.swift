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
        var pfd = pollfd(fd: timer.fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pfd, 1, 1000), 1)
        XCTAssertEqual(try timer.read(), 1)
    }
}
