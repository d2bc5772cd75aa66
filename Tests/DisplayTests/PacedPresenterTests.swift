import XCTest
@testable import Display
import Graphics
import Platform
import Glibc

final class PacedPresenterTests: XCTestCase {
    /// Waits for the presenter's fd to become readable, as the run loop's poll would.
    private func pollReadable(_ fd: FileDescriptor, timeoutMilliseconds: Int32) -> Bool {
        var p = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, timeoutMilliseconds) == 1
    }

    func testEachFrameFlipsOneRefreshLaterOnItsFD() throws {
        let p = try PacedPresenter(width: 64, height: 48, refreshRate: 100)
        let fd = try XCTUnwrap(p.pollDescriptor)
        let shadow = Surface(width: 64, height: 48, format: .xrgb8888)
        shadow.clear(PixelRect(0, 0, 64, 48), to: Color(r: 200, g: 40, b: 40))
        XCTAssertTrue(p.isReadyForFrame)
        XCTAssertTrue(p.needsFullRedraw)
        try p.present(shadow, damage: DamageRegion(PixelRect(0, 0, 64, 48)))
        XCTAssertFalse(p.isReadyForFrame, "a flip is pending")
        XCTAssertFalse(p.needsFullRedraw)
        XCTAssertEqual(p.memory.screenshot().pixel(x: 10, y: 10), shadow.pixel(x: 10, y: 10))
        // Damage given during the flip waits for the next frame.
        shadow.clear(PixelRect(0, 0, 8, 8), to: Color(r: 0, g: 0, b: 255))
        try p.present(shadow, damage: DamageRegion(PixelRect(0, 0, 8, 8)))
        XCTAssertNotEqual(p.memory.screenshot().pixel(x: 1, y: 1), shadow.pixel(x: 1, y: 1))
        XCTAssertTrue(pollReadable(fd, timeoutMilliseconds: 1000), "the flip completes on the fd")
        try p.handleReadable()
        XCTAssertTrue(p.isReadyForFrame)
        XCTAssertEqual(p.flips, 1)
        try p.present(shadow, damage: DamageRegion())
        XCTAssertEqual(p.memory.screenshot().pixel(x: 1, y: 1), shadow.pixel(x: 1, y: 1), "the kept damage is shown")
        XCTAssertTrue(pollReadable(fd, timeoutMilliseconds: 1000))
        try p.handleReadable()
        // Nothing new: no flip, so nothing wakes the loop.
        try p.present(shadow, damage: DamageRegion())
        XCTAssertTrue(p.isReadyForFrame)
        XCTAssertFalse(pollReadable(fd, timeoutMilliseconds: 50))
        p.shutdown()
        XCTAssertFalse(p.isReadyForFrame)
    }

    func testFlipsLandOnAVblankGrid() throws {
        let p = try PacedPresenter(width: 16, height: 16, refreshRate: 100)
        let fd = try XCTUnwrap(p.pollDescriptor)
        let shadow = Surface(width: 16, height: 16, format: .xrgb8888)
        var shown: [Double] = []
        for frame in 0..<4 {
            shadow.clear(PixelRect(0, 0, 16, 16), to: Color(r: UInt8(frame * 40), g: 0, b: 0))
            let presented = monotonicSeconds()
            try p.present(shadow, damage: DamageRegion(PixelRect(0, 0, 16, 16)))
            XCTAssertTrue(pollReadable(fd, timeoutMilliseconds: 1000))
            try p.handleReadable()
            let at = try XCTUnwrap(p.lastShownAt)
            XCTAssertGreaterThan(at, presented, "a flip lands after its present")
            XCTAssertLessThanOrEqual(at - presented, 0.01 + 1e-6, "at the next vblank, at most a period later")
            shown.append(at)
            usleep(UInt32(3000 * frame))
        }
        for (a, b) in zip(shown, shown.dropFirst()) {
            let periods = (b - a) / 0.01
            XCTAssertEqual(periods, periods.rounded(), accuracy: 1e-6, "vblanks a whole number of periods apart")
        }
    }

    func testRotatedAndBadRates() throws {
        let p = try PacedPresenter(width: 48, height: 64, rotation: .deg90)
        XCTAssertEqual(p.memory.scanout.width, 64)
        XCTAssertEqual(p.memory.scanout.height, 48)
        XCTAssertThrowsError(try PacedPresenter(width: 48, height: 64, refreshRate: 0))
        XCTAssertThrowsError(try PacedPresenter(width: 0, height: 64))
    }
}
