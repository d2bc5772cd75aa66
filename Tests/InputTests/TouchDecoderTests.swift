import XCTest
import CEvdev
@testable import Input

final class TouchDecoderTests: XCTestCase {
    func testSlotsCarryValuesAcrossFrames() {
        var decoder = slotDecoder()
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 10); s.abs(ABS_MT_POSITION_X, 100); s.abs(ABS_MT_POSITION_Y, 200); s.syn()
        s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        // Same place again: the kernel sends no X or Y, only the new tracking id.
        s.abs(ABS_MT_TRACKING_ID, 11); s.syn()
        s.abs(ABS_MT_POSITION_Y, 300); s.syn()
        s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .up, .down, .move, .up])
        XCTAssertEqual(out[2].x, 100.5)
        XCTAssertEqual(out[2].y, 200.5)
        XCTAssertEqual(out[3].x, 100.5)
        XCTAssertEqual(out[3].y, 300.5)
        XCTAssertNotEqual(out[0].id, out[2].id)
        XCTAssertEqual(out[0].time, 100)
        XCTAssertTrue(decoder.liveContacts.isEmpty)
    }

    func testTwoSlotsAreIndependent() {
        var decoder = slotDecoder()
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 10); s.abs(ABS_MT_POSITION_Y, 10)
        s.abs(ABS_MT_SLOT, 1); s.abs(ABS_MT_TRACKING_ID, 2); s.abs(ABS_MT_POSITION_X, 500); s.abs(ABS_MT_POSITION_Y, 500)
        s.syn()
        // Only slot 1 changes; the slot stays 1 without a new ABS_MT_SLOT.
        s.abs(ABS_MT_POSITION_X, 510); s.syn()
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        s.abs(ABS_MT_SLOT, 1); s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .down, .move, .up, .up])
        XCTAssertEqual(out[2].id, out[1].id)
        XCTAssertEqual(out[2].x, 510.5)
        XCTAssertEqual(out[3].id, out[0].id)
    }

    func testTrackingIDChangeWithoutLiftEndsTheOldContact() {
        var decoder = slotDecoder()
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 10); s.abs(ABS_MT_POSITION_Y, 10); s.syn()
        s.abs(ABS_MT_TRACKING_ID, 2); s.abs(ABS_MT_POSITION_X, 300); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .up, .down])
        XCTAssertEqual(out[1].x, 10.5, "the old contact ends where it was")
        XCTAssertEqual(out[2].x, 300.5)
        XCTAssertEqual(decoder.liveContacts, [out[2].id])
    }

    func testSynDroppedInRawStreamCancelsAndIgnoresTheLostContact() {
        var decoder = slotDecoder()
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 100); s.abs(ABS_MT_POSITION_Y, 100); s.syn()
        s.abs(ABS_MT_POSITION_X, 110)     // part of a frame that never completes
        s.dropped()
        s.abs(ABS_MT_POSITION_X, 900)     // dropped: up to and including the next SYN_REPORT
        s.syn()
        // The finger moves on: the kernel only sends deltas, we don't know this contact anymore.
        s.abs(ABS_MT_POSITION_X, 130); s.syn()
        s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        // A new touch afterwards works.
        s.abs(ABS_MT_TRACKING_ID, 2); s.abs(ABS_MT_POSITION_X, 50); s.syn()
        s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .cancel, .down, .up])
        XCTAssertEqual(out[1].x, 100.5, "cancelled at the last committed position, not the dropped one")
        XCTAssertEqual(out[2].x, 50.5)
        XCTAssertTrue(decoder.liveContacts.isEmpty)
    }

    func testLibevdevResyncCompletesMovesAndRestartsContacts() {
        var decoder = slotDecoder()
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 100); s.abs(ABS_MT_POSITION_Y, 100)
        s.abs(ABS_MT_SLOT, 1); s.abs(ABS_MT_TRACKING_ID, 2); s.abs(ABS_MT_POSITION_X, 200); s.abs(ABS_MT_POSITION_Y, 200)
        s.abs(ABS_MT_SLOT, 2); s.abs(ABS_MT_TRACKING_ID, 3); s.abs(ABS_MT_POSITION_X, 300); s.abs(ABS_MT_POSITION_Y, 300)
        s.syn()
        var out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .down, .down])
        let ids = out.map(\.id)
        // Half a frame, then SYN_DROPPED as libevdev reports it.
        s = EventScript(time: 101)
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_POSITION_X, 999)
        out = decoder.feed(s)
        decoder.beginResync()
        // libevdev's delta (syn_dropped.html): slot 0 lifted, slot 1 moved, slot 2 re-touched.
        s = EventScript(time: 101.5)
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_TRACKING_ID, -1)
        s.abs(ABS_MT_SLOT, 1); s.abs(ABS_MT_POSITION_X, 250)
        s.abs(ABS_MT_SLOT, 2); s.abs(ABS_MT_TRACKING_ID, -1); s.abs(ABS_MT_TRACKING_ID, 7); s.abs(ABS_MT_POSITION_Y, 350)
        s.abs(ABS_MT_SLOT, 1)
        s.syn()
        out += decoder.feed(s)
        XCTAssertEqual(out.map { "\($0.phase) \($0.id == ids[0] ? "a" : $0.id == ids[1] ? "b" : $0.id == ids[2] ? "c" : "new")" },
                       ["up a", "move b", "up c", "down new"])
        XCTAssertEqual(out[0].x, 100.5, "the dropped X never applies")
        XCTAssertEqual(out[1].x, 250.5)
        XCTAssertEqual(out[3].x, 300.5)
        XCTAssertEqual(out[3].y, 350.5)
        // The active slot is 1 again (libevdev's closing ABS_MT_SLOT).
        s = EventScript(time: 102)
        s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        s.abs(ABS_MT_SLOT, 2); s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.up, .up])
        XCTAssertEqual(out[0].id, ids[1])
        XCTAssertTrue(decoder.liveContacts.isEmpty)
    }

    func testDeviceVanishingMidTouchCancelsEveryContact() {
        var decoder = slotDecoder()
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 100); s.abs(ABS_MT_POSITION_Y, 100)
        s.abs(ABS_MT_SLOT, 1); s.abs(ABS_MT_TRACKING_ID, 2); s.abs(ABS_MT_POSITION_X, 200); s.abs(ABS_MT_POSITION_Y, 200)
        s.syn()
        s.abs(ABS_MT_POSITION_X, 220)      // a frame cut off by the unplug
        var out = decoder.feed(s)
        out += decoder.deviceRemoved(time: 200)
        XCTAssertEqual(phases(out), [.down, .down, .cancel, .cancel])
        XCTAssertEqual(Set(out[2...].map(\.id)), Set(out[..<2].map(\.id)))
        XCTAssertEqual(out[3].x, 200.5)
        XCTAssertEqual(out[3].time, 200)
        XCTAssertTrue(decoder.liveContacts.isEmpty)
        XCTAssertEqual(decoder.deviceRemoved(time: 201), [], "nothing left to cancel")
    }

    func testContactIDsAreUniqueAcrossDevices() {
        var first = slotDecoder(serial: 1), second = slotDecoder(serial: 2)
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 1); s.abs(ABS_MT_POSITION_Y, 1); s.syn()
        let a = first.feed(s), b = second.feed(s)
        XCTAssertNotEqual(a[0].id, b[0].id)
    }

    func testEventsForUndeclaredSlotsAreIgnored() {
        var decoder = slotDecoder(slots: 2)
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 5); s.abs(ABS_MT_TRACKING_ID, 1); s.abs(ABS_MT_POSITION_X, 1); s.syn()
        s.abs(ABS_MT_SLOT, -1); s.abs(ABS_MT_TRACKING_ID, 1); s.syn()
        XCTAssertEqual(decoder.feed(s), [])
    }

    func testProtocolA() {
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .anonymous,
                                                         x: AxisRange(minimum: 0, maximum: 1279),
                                                         y: AxisRange(minimum: 0, maximum: 799)),
                                   transform: screen1280x800, deviceSerial: 3)
        var s = EventScript()
        // Two fingers; legacy ABS_X/BTN_TOUCH emulation alongside is ignored.
        s.key(BTN_TOUCH, 1)
        s.abs(ABS_MT_POSITION_X, 100); s.abs(ABS_MT_POSITION_Y, 100); s.mtReport()
        s.abs(ABS_MT_POSITION_X, 600); s.abs(ABS_MT_POSITION_Y, 600); s.mtReport()
        s.abs(ABS_X, 100); s.abs(ABS_Y, 100); s.syn()
        // Reported in the other order and moved a little: matched by distance, not order.
        s.abs(ABS_MT_POSITION_X, 610); s.abs(ABS_MT_POSITION_Y, 600); s.mtReport()
        s.abs(ABS_MT_POSITION_X, 105); s.abs(ABS_MT_POSITION_Y, 100); s.mtReport()
        s.syn()
        // The first finger lifts.
        s.abs(ABS_MT_POSITION_X, 615); s.abs(ABS_MT_POSITION_Y, 600); s.mtReport()
        s.syn()
        // A drop: the partial frame and the next one are lost, but protocol A resends all.
        s.abs(ABS_MT_POSITION_X, 700); s.dropped()
        s.abs(ABS_MT_POSITION_X, 800); s.abs(ABS_MT_POSITION_Y, 600); s.mtReport(); s.syn()
        s.abs(ABS_MT_POSITION_X, 620); s.abs(ABS_MT_POSITION_Y, 600); s.mtReport(); s.syn()
        // All up: an empty report.
        s.key(BTN_TOUCH, 0); s.mtReport(); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .down, .move, .move, .up, .move, .move, .up])
        let (a, b) = (out[0].id, out[1].id)
        XCTAssertEqual(out[2].id, b); XCTAssertEqual(out[2].x, 610.5)
        XCTAssertEqual(out[3].id, a); XCTAssertEqual(out[3].x, 105.5)
        XCTAssertEqual(out[4].id, a)
        XCTAssertEqual(out[5].id, b); XCTAssertEqual(out[5].x, 615.5)
        XCTAssertEqual(out[6].id, b); XCTAssertEqual(out[6].x, 620.5, "the frame after the drop reconciles")
        XCTAssertEqual(out[7].id, b)
        XCTAssertTrue(decoder.liveContacts.isEmpty)
    }

    func testProtocolAWithTrackingIDs() {
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .anonymous,
                                                         x: AxisRange(minimum: 0, maximum: 1279),
                                                         y: AxisRange(minimum: 0, maximum: 799)),
                                   transform: screen1280x800, deviceSerial: 3)
        var s = EventScript()
        s.abs(ABS_MT_TRACKING_ID, 4); s.abs(ABS_MT_POSITION_X, 100); s.abs(ABS_MT_POSITION_Y, 100); s.mtReport(); s.syn()
        // A different id at nearly the same place is a different finger.
        s.abs(ABS_MT_TRACKING_ID, 5); s.abs(ABS_MT_POSITION_X, 101); s.abs(ABS_MT_POSITION_Y, 100); s.mtReport(); s.syn()
        s.syn()
        XCTAssertEqual(phases(decoder.feed(s)), [.down, .up, .down, .up])
    }

    func testSingleTouchResistivePanel() {
        // ADS7846-style: ABS_X/ABS_Y 0..4095 + BTN_TOUCH.
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .singleTouch,
                                                         x: AxisRange(minimum: 0, maximum: 4095),
                                                         y: AxisRange(minimum: 0, maximum: 4095)),
                                   transform: TouchTransform(displayWidth: 800, displayHeight: 480),
                                   deviceSerial: 4)
        var s = EventScript()
        s.abs(ABS_X, 2047); s.abs(ABS_Y, 2047); s.syn()       // hovering noise: no contact
        s.key(BTN_TOUCH, 1); s.syn()                          // position carried over
        s.abs(ABS_X, 3000); s.syn()
        s.key(BTN_TOUCH, 2); s.syn()                          // autorepeat-style value: no new contact
        s.key(BTN_TOUCH, 0); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .move, .up])
        XCTAssertEqual(out[0].x, 2047.5 / 4096 * 800, accuracy: 1e-9)
        XCTAssertEqual(out[0].y, 2047.5 / 4096 * 480, accuracy: 1e-9)
        XCTAssertEqual(out[1].x, 3000.5 / 4096 * 800, accuracy: 0.001)
        XCTAssertEqual(out[2].x, out[1].x)
    }

    func testSingleTouchDropAndRemoval() {
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .singleTouch,
                                                         x: AxisRange(minimum: 0, maximum: 799),
                                                         y: AxisRange(minimum: 0, maximum: 479)),
                                   transform: TouchTransform(displayWidth: 800, displayHeight: 480),
                                   deviceSerial: 4)
        var s = EventScript()
        s.key(BTN_TOUCH, 1); s.abs(ABS_X, 10); s.abs(ABS_Y, 10); s.syn()
        s.dropped(); s.key(BTN_TOUCH, 0); s.syn()
        s.abs(ABS_X, 20); s.syn()                             // still lost
        s.key(BTN_TOUCH, 1); s.syn()                          // a fresh press
        var out = decoder.feed(s)
        out += decoder.deviceRemoved(time: 300)
        XCTAssertEqual(phases(out), [.down, .cancel, .down, .cancel])
        XCTAssertEqual(out[2].x, 20.5)
        XCTAssertTrue(decoder.liveContacts.isEmpty)
    }

    func testSingleTouchResyncCompletesTheLift() {
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .singleTouch,
                                                         x: AxisRange(minimum: 0, maximum: 799),
                                                         y: AxisRange(minimum: 0, maximum: 479)),
                                   transform: TouchTransform(displayWidth: 800, displayHeight: 480),
                                   deviceSerial: 4)
        var s = EventScript()
        s.key(BTN_TOUCH, 1); s.abs(ABS_X, 10); s.abs(ABS_Y, 10); s.syn()
        var out = decoder.feed(s)
        decoder.beginResync()
        s = EventScript(time: 101)
        s.key(BTN_TOUCH, 0); s.abs(ABS_X, 30); s.syn()
        out += decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .up])
        XCTAssertEqual(out[1].x, 30.5)
    }

    func testQemuTabletAsOneFinger() {
        // virtio-tablet: ABS_X/ABS_Y 0..32767 + BTN_LEFT, driven by HMP mouse_move/mouse_button.
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .absolutePointer,
                                                         x: AxisRange(minimum: 0, maximum: 32767),
                                                         y: AxisRange(minimum: 0, maximum: 32767)),
                                   transform: screen1280x800, deviceSerial: 5)
        var s = EventScript()
        s.abs(ABS_X, 16384); s.abs(ABS_Y, 16384); s.syn()     // pointer motion alone is no touch
        s.key(BTN_LEFT, 1); s.syn()
        s.key(BTN_RIGHT, 1); s.syn()                          // other buttons mean nothing
        s.key(BTN_LEFT, 0); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .up])
        XCTAssertEqual(out[0].x, 640, accuracy: 0.05)
        XCTAssertEqual(out[0].y, 400, accuracy: 0.05)
    }
}
