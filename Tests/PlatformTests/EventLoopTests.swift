import XCTest
import Glibc
@testable import Platform

final class EventLoopTests: XCTestCase {
    private func makePipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        let ends = try FileDescriptor.pipe()
        for fd in [ends.read, ends.write] { _ = fcntl(fd.rawValue, F_SETFL, O_NONBLOCK) }
        return ends
    }

    func testReadableFdRunsItsHandler() throws {
        let loop = EventLoop()
        let (r, w) = try makePipe()
        defer { r.close(); w.close() }
        var seen: [Int16] = []
        loop.watch(fd: r) { events in
            seen.append(events)
            var byte: UInt8 = 0
            _ = try? r.read(&byte)
        }
        XCTAssertEqual(try loop.runOnce(timeout: 0), 0, "nothing written yet")
        let byte: UInt8 = 7
        XCTAssertNoThrow(try w.writeAll([byte]))
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
        let (r, w) = try makePipe()
        defer { r.close(); w.close() }
        loop.watch(fd: r) { _ in XCTFail("not readable") }
        let start = monotonicSeconds()
        XCTAssertEqual(try loop.runOnce(timeout: 0.04), 0)
        XCTAssertGreaterThanOrEqual(monotonicSeconds() - start, 0.039)
    }

    func testHandlerRemovingAnotherWatchInTheSameRound() throws {
        let loop = EventLoop()
        let first = try makePipe(), second = try makePipe()
        defer { [first.read, first.write, second.read, second.write].forEach { $0.close() } }
        var calls: [String] = []
        var secondToken: EventLoop.Token?
        loop.watch(fd: first.read) { _ in
            calls.append("first")
            if let token = secondToken { loop.cancel(token) }
        }
        secondToken = loop.watch(fd: second.read) { _ in calls.append("second") }
        let byte: UInt8 = 1
        try first.write.writeAll([byte])
        try second.write.writeAll([byte])
        try loop.runOnce(timeout: 1)
        XCTAssertEqual(calls, ["first"])
        XCTAssertEqual(loop.watchCount, 1)
    }

    func testClosedFdIsDroppedNotSpunOn() throws {
        let loop = EventLoop()
        let (r, w) = try makePipe()
        w.close()
        r.close()
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
        let (r, w) = try makePipe()
        defer { r.close() }
        var events: Int16 = 0
        let token = loop.watch(fd: r) { events = $0; }
        w.close()
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
