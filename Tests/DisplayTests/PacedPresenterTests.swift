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

    func testRotatedAndBadRates() throws {
        let p = try PacedPresenter(width: 48, height: 64, rotation: .deg90)
        XCTAssertEqual(p.memory.scanout.width, 64)
        XCTAssertEqual(p.memory.scanout.height, 48)
        XCTAssertThrowsError(try PacedPresenter(width: 48, height: 64, refreshRate: 0))
        XCTAssertThrowsError(try PacedPresenter(width: 0, height: 64))
    }
}
