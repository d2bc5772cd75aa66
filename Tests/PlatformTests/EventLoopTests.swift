import XCTest
import Glibc
@testable import Platform

final class EventLoopTests: XCTestCase {
    private func makePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        for fd in ends { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        return (ends[0], ends[1])
    }

    func testReadableFdRunsItsHandler() throws {
        let loop = EventLoop()
        let (r, w) = makePipe()
        defer { close(r); close(w) }
        var seen: [Int16] = []
        loop.watch(fd: r) { events in
            seen.append(events)
            var byte: UInt8 = 0
            _ = read(r, &byte, 1)
        }
        XCTAssertEqual(try loop.runOnce(timeout: 0), 0, "nothing written yet")
        var byte: UInt8 = 7
        XCTAssertEqual(write(w, &byte, 1), 1)
        XCTAssertEqual(try loop.runOnce(timeout: 1), 1)
        XCTAssertEqual(seen.count, 1)
        XCTAssertNotEqual(seen[0] & Int16(POLLIN), 0)
    }

    func testTimeoutsRunInDeadlineOrderAndCancelledOnesDoNot() throws {
        let loop = EventLoop()
        var order: [String] = []
        loop.after(0.03) { order.append("late") }
        loop.after(0.01) { order.append("early") }
        let cancelled = loop.after(0.02) { order.append("cancelled") }
        loop.cancel(cancelled)
        let start = monotonicSeconds()
        loop.after(0.05) { loop.stop() }
        try loop.run()
        let elapsed = monotonicSeconds() - start
        XCTAssertEqual(order, ["early", "late"])
        XCTAssertGreaterThanOrEqual(elapsed, 0.05)
        XCTAssertLessThan(elapsed, 1.0)
        XCTAssertEqual(loop.timeoutCount, 0)
    }

    func testWaitWithNothingReadyLastsTheTimeout() throws {
        let loop = EventLoop()
        let (r, w) = makePipe()
        defer { close(r); close(w) }
        loop.watch(fd: r) { _ in XCTFail("not readable") }
        let start = monotonicSeconds()
        XCTAssertEqual(try loop.runOnce(timeout: 0.04), 0)
        XCTAssertGreaterThanOrEqual(monotonicSeconds() - start, 0.039)
    }

    func testHandlerRemovingAnotherWatchInTheSameRound() throws {
        let loop = EventLoop()
        let first = makePipe(), second = makePipe()
        defer { [first.read, first.write, second.read, second.write].forEach { close($0) } }
        var calls: [String] = []
        var secondToken: EventLoop.Token?
        loop.watch(fd: first.read) { _ in
            calls.append("first")
            if let token = secondToken { loop.cancel(token) }
        }
        secondToken = loop.watch(fd: second.read) { _ in calls.append("second") }
        var byte: UInt8 = 1
        _ = write(first.write, &byte, 1)
        _ = write(second.write, &byte, 1)
        try loop.runOnce(timeout: 1)
        XCTAssertEqual(calls, ["first"])
        XCTAssertEqual(loop.watchCount, 1)
    }

    func testClosedFdIsDroppedNotSpunOn() throws {
        let loop = EventLoop()
        let (r, w) = makePipe()
        close(w)
        close(r)
        var lines: [String] = []
        let oldSink = Log.sink
        Log.sink = { lines.append($0) }
        defer { Log.sink = oldSink }
        loop.watch(fd: r) { _ in XCTFail("handler of a closed fd") }
        try loop.runOnce(timeout: 0)
        XCTAssertEqual(loop.watchCount, 0)
        XCTAssertTrue(lines.contains { $0.hasPrefix("<3>") && $0.contains("closed while watched") })
    }

    func testHangupIsReported() throws {
        let loop = EventLoop()
        let (r, w) = makePipe()
        defer { close(r) }
        var events: Int16 = 0
        let token = loop.watch(fd: r) { events = $0; }
        close(w)
        try loop.runOnce(timeout: 1)
        XCTAssertNotEqual(events & Int16(POLLHUP), 0)
        loop.cancel(token)
    }

    func testRunReturnsWhenNothingIsLeft() throws {
        let loop = EventLoop()
        loop.after(0) {}
        try loop.run()
        XCTAssertFalse(loop.isRunning)
    }

    func testBeforeWaitRunsEveryRound() throws {
        let loop = EventLoop()
        var rounds = 0
        loop.beforeWait = { rounds += 1 }
        try loop.runOnce(timeout: 0)
        try loop.runOnce(timeout: 0)
        XCTAssertEqual(rounds, 2)
    }
}
