import Platform
import XCTest
@testable import Input

final class EvemuTests: XCTestCase {
    let singleFile = """
        # EVEMU 1.1
        N: Some Panel
        I: 0003 0eef 0001 0100
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 03 03 00 00 00 00 00 00 00
        A: 00 0 4095 0 0
        A: 01 0 4095 0 0
        E: 1000.000100 0001 014a 1
        E: 1000.000200 0003 0000 2047
        E: 1000.000300 0003 0001 1023
        E: 1000.000400 0000 0000 0000\t# ------------ SYN_REPORT (0) ----------
        E: 1000.100000 0001 014a 0
        E: 1000.100000 0000 0000 0

        """

    func testSingleFileForm() throws {
        let recording = try EvemuRecording.parse(singleFile, file: "panel.evemu")
        XCTAssertEqual(recording.name, "Some Panel")
        XCTAssertEqual(recording.vendor, 0x0eef)
        XCTAssertEqual(recording.properties, [1])
        XCTAssertEqual(recording.bits[EV.key], [EV.btnTouch])
        XCTAssertEqual(recording.bits[EV.abs], [EV.absX, EV.absY])
        XCTAssertEqual(recording.axes[EV.absX], AxisInfo(minimum: 0, maximum: 4095))
        XCTAssertEqual(recording.events.count, 6)
        XCTAssertEqual(recording.events[1], RawInputEvent(time: 1000.0002, type: EV.abs, code: EV.absX, value: 2047))
        guard case .touch(let info) = recording.capabilities.classify() else { return XCTFail() }
        XCTAssertEqual(info.touchProtocol, .singleTouch)
        let replay = try InputReplay(recording: recording, transform: TouchTransform(displayWidth: 800, displayHeight: 480))
        XCTAssertEqual(replay.contacts.count, 1)
        XCTAssertEqual(replay.contacts[0].firstX, 2047.5 / 4096 * 800, accuracy: 0.001)
        XCTAssertEqual(replay.contacts[0].firstY, 1023.5 / 4096 * 480, accuracy: 0.001)
        XCTAssertEqual(replay.gestures.count, 1)
    }

    func testSixFieldAxisLinesCarryResolution() throws {
        let recording = try EvemuRecording.load(fixture("EP0430M09.desc"))
        XCTAssertEqual(recording.axes[EV.absMTTrackingID], AxisInfo(minimum: 0, maximum: 65535))
        XCTAssertEqual(recording.axes.count, 6)
        let wacom = try EvemuRecording.load(fixture("Wacom_ISDv4_E6_Finger.desc"))
        XCTAssertEqual(wacom.axes[EV.absX]?.fuzz, 4)
        XCTAssertTrue(wacom.events.isEmpty)
    }

    func testEventTimesKeepMicroseconds() throws {
        let recording = try EvemuRecording.parse("E: 1330495931.101111 0003 0039 -1\n", file: "x")
        XCTAssertEqual(recording.events[0].time, 1330495931.101111, accuracy: 1e-6)
        XCTAssertEqual(recording.events[0].value, -1)
        XCTAssertFalse(recording.hasDescription)
    }

    func testMalformedLinesNameFileAndLine() {
        let cases: [(String, Int)] = [
            ("N: x\nE: 0.1 0003 zz 5\n", 2),
            ("N: x\n\n# fine\nA: 00 0 100 0\n", 4),
            ("E: 0.1 0003 0000\n", 1),
            ("E: 0.1 0003 0000 12x\n", 1),
            ("E: -1.5 0003 0000 1\n", 1),
            ("E: 0.1.2 0003 0000 1\n", 1),
            ("N: x\nQ: what\n", 2),
            ("garbage\n", 1),
            ("B: 03 0g\n", 1),
            ("I: 0003 0001\n", 1),
            ("A: 40 0 1 0 0 0\n", 1),
            ("A: 00 0 99999999999 0 0 0\n", 1),
        ]
        for (text, line) in cases {
            XCTAssertThrowsError(try EvemuRecording.parse(text, file: "bad.events"), text) { error in
                guard let error = error as? EvemuError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.file, "bad.events")
                XCTAssertEqual(error.line, line, text)
                XCTAssertTrue(error.description.hasPrefix("bad.events:\(line): "), error.description)
            }
        }
    }

    func testMissingFileIsAClearError() {
        XCTAssertThrowsError(try EvemuRecording.load("/nonexistent/x.events")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/x.events"), "\(error)")
        }
        XCTAssertThrowsError(try EvemuRecording.load(description: fixture("Wacom_ISDv4_E6_Finger.single-tap-center.events"),
                                                     events: fixture("Wacom_ISDv4_E6_Finger.single-tap-center.events")))
    }
}

final class KeyboardReplayTests: XCTestCase {
    func testKeyboardRecordingReplaysKeys() throws {
        // KEY_ESC .. KEY_D (codes 1-32): a full keyboard by udev's rule.
        let text = """
            N: USB Keyboard
            I: 0003 046d c31c 0110
            B: 00 13 00 00 00 00 00 00 00
            B: 01 fe ff ff ff 01 00 00 00
            E: 5.000000 0001 0011 1
            E: 5.000000 0000 0000 0
            E: 5.300000 0001 0011 2
            E: 5.300000 0000 0000 0
            E: 5.500000 0001 0011 0
            E: 5.500000 0000 0000 0

            """
        let recording = try EvemuRecording.parse(text, file: "keyboard.evemu")
        let replay = try InputReplay(recording: recording, transform: TouchTransform(displayWidth: 800, displayHeight: 480))
        XCTAssertEqual(replay.keys, [KeyEvent(key: .up, isPressed: true, time: 0),
                                     KeyEvent(key: .up, isPressed: false, time: 0.5)])
        XCTAssertEqual(replay.jsonLines.first, #"{"type":"key","time":0,"key":"up","pressed":true}"#)
    }

    func testIgnoredDeviceRecordingIsAnError() throws {
        let recording = try EvemuRecording.parse("N: Power Button\nB: 00 03\nB: 01 " + String(repeating: "00 ", count: 14) + "10\n",
                                                 file: "power.evemu")
        XCTAssertThrowsError(try InputReplay(recording: recording, transform: TouchTransform(displayWidth: 800, displayHeight: 480)))
    }

    func testJSONStrings() {
        XCTAssertEqual(jsonString("a \"b\"\\\n\u{1}é"), #""a \"b\"\\\n\u0001é""#)
    }
}
