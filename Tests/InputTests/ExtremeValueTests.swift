import XCTest
import CEvdev
@testable import Input

/// Integers and times from devices and recordings at their extremes: nothing traps, nothing spins.
final class ExtremeValueTests: XCTestCase {
    func testProtocolAContactsAtInt32Extremes() {
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .anonymous,
                                                         x: AxisRange(minimum: 0, maximum: 1279),
                                                         y: AxisRange(minimum: 0, maximum: 799)),
                                   transform: screen1280x800, deviceSerial: 3)
        var s = EventScript()
        // Two contacts at opposite corners of Int32's range, then swapped: every distance the
        // matcher computes is (2^32 - 1)^2 per axis, beyond Int64.
        s.abs(ABS_MT_POSITION_X, .min); s.abs(ABS_MT_POSITION_Y, .min); s.mtReport()
        s.abs(ABS_MT_POSITION_X, .max); s.abs(ABS_MT_POSITION_Y, .max); s.mtReport(); s.syn()
        s.abs(ABS_MT_POSITION_X, .max); s.abs(ABS_MT_POSITION_Y, .min); s.mtReport()
        s.abs(ABS_MT_POSITION_X, .min); s.abs(ABS_MT_POSITION_Y, .max); s.mtReport(); s.syn()
        s.mtReport(); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .down, .move, .move, .up, .up])
        for event in out {
            XCTAssertTrue((0..<1280).contains(event.x) && (0..<800).contains(event.y), "clamped on screen: \(event)")
        }
        XCTAssertTrue(decoder.liveContacts.isEmpty)
    }

    func testSquaredDistanceSaturates() {
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .anonymous,
                                                         x: AxisRange(minimum: .min, maximum: .max),
                                                         y: AxisRange(minimum: .min, maximum: .max)),
                                   transform: screen1280x800, deviceSerial: 1)
        var s = EventScript()
        s.abs(ABS_MT_POSITION_X, .min); s.abs(ABS_MT_POSITION_Y, .min); s.mtReport(); s.syn()
        s.abs(ABS_MT_POSITION_X, .max); s.abs(ABS_MT_POSITION_Y, .max); s.mtReport(); s.syn()
        XCTAssertEqual(phases(decoder.feed(s)), [.down, .move])
    }

    func testAxisRanges() {
        XCTAssertEqual(AxisRange(minimum: 5, maximum: 5).normalized(5), 0.5, "min == max: the middle")
        XCTAssertEqual(AxisRange(minimum: 9, maximum: 2).normalized(.max), 0.5, "min > max: the middle")
        let full = AxisRange(minimum: .min, maximum: .max)
        XCTAssertEqual(full.normalized(.min), 0, accuracy: 1e-9)
        XCTAssertEqual(full.normalized(.max), 1, accuracy: 1e-9)
        // A degenerate axis on a real decoder: every touch lands mid-screen, none traps.
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: .slots(count: 2),
                                                         x: AxisRange(minimum: 7, maximum: 7),
                                                         y: AxisRange(minimum: 0, maximum: 0)),
                                   transform: screen1280x800, deviceSerial: 1)
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0); s.abs(ABS_MT_TRACKING_ID, 1)
        s.abs(ABS_MT_POSITION_X, .max); s.abs(ABS_MT_POSITION_Y, .min); s.syn()
        s.abs(ABS_MT_TRACKING_ID, -1); s.syn()
        let out = decoder.feed(s)
        XCTAssertEqual(phases(out), [.down, .up])
        XCTAssertEqual(out[0].x, 640, accuracy: 1)
        XCTAssertEqual(out[0].y, 400, accuracy: 1)
    }

    /// A caller that waits for `nextDeadline` and then calls `update(now:)` with it (the
    /// replay, the live loop) must see the long press fire at once, whatever the start time.
    func testLongPressDeadlineFiresAtEpochAndOddTimes() {
        let starts: [Double] = [0, 0.1, 0.7, 1e-300, 1_733_051_234.987654, 1_700_000_000, 4_102_444_800.000001,
                                123_456_789.123_456_7, 9_007_199_254.740_991, -5.3]
        for start in starts {
            for step in 0..<50 {
                let t = start + Double(step) * 0.000_013
                var g = GestureRecognizer(pixelsPerPoint: 1)
                _ = g.handle(TouchEvent(phase: .down, id: 1, x: 10, y: 10, time: t))
                guard let due = g.nextDeadline else { return XCTFail("no deadline at \(t)") }
                XCTAssertEqual(g.update(now: due), [.longPress(x: 10, y: 10, touchID: 1)], "start \(t)")
                XCTAssertNil(g.nextDeadline, "start \(t)")
            }
        }
    }

    /// The real recordings, slowed down 3x (so fingers held still become long presses) and
    /// shifted to seconds since 1970, as evemu-record writes them on some kernels: the replay
    /// ends (it spun forever on the first long press before) with the gestures it finds when
    /// the same recording starts at 0.
    func testReplayWithEpochTimestamps() throws {
        let cases = [("EP0430M09.desc", "EP0430M09.1-finger-drag-up-down.events"),
                     ("EP0430M09.desc", "EP0430M09.2-fingers-touch-release.events"),
                     ("QUANTA_OpticalTouchScreen.desc", "QUANTA_OpticalTouchScreen.touch-on-left.events"),
                     ("Wacom_ISDv4_E6_Finger.desc", "Wacom_ISDv4_E6_Finger.single-tap-center.events")]
        let transform = TouchTransform(displayWidth: 1280, displayHeight: 800)
        var longPresses = 0
        for (desc, events) in cases {
            let recording = try EvemuRecording.load(description: fixture(desc), events: fixture(events))
            func retimed(_ offset: Double) -> EvemuRecording {
                var copy = recording
                let first = recording.events.first?.time ?? 0
                copy.events = recording.events.map {
                    var e = $0
                    e.time = offset + ($0.time - first) * 3
                    return e
                }
                return copy
            }
            let base = try InputReplay(recording: retimed(0), transform: transform)
            longPresses += base.gestures.filter { if case .longPress = $0 { true } else { false } }.count
            for offset in [1_733_051_234.987654, 1_600_000_000.000_001, 0.1] {
                let replay = try InputReplay(recording: retimed(offset), transform: transform)
                XCTAssertEqual(replay.gestures, base.gestures, "\(events) at \(offset)")
                XCTAssertEqual(replay.contacts.count, base.contacts.count, "\(events) at \(offset)")
            }
        }
        XCTAssertGreaterThan(longPresses, 0, "the slowed recordings hold a finger still")
    }
}
