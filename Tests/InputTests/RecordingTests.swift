import XCTest
import ScreenGeometry
@testable import Input

/// Real touchscreen recordings (evemu-devices, MIT) through the kiosk's decoder and gestures.
final class RecordingTests: XCTestCase {
    func replay(_ desc: String, _ events: String, width: Int, height: Int,
                rotation: Rotation = .deg0) throws -> InputReplay {
        let recording = try EvemuRecording.load(description: fixture(desc), events: fixture(events))
        let transform = TouchTransform(displayWidth: width, displayHeight: height, rotation: rotation)
        return try InputReplay(recording: recording, transform: transform)
    }

    func testEveryFixtureRecordingReplays() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture(""))
        let recordings = names.filter { $0.hasSuffix(".events") }
        XCTAssertEqual(recordings.count, 5)
        for name in recordings {
            let device = String(name[..<name.firstIndex(of: ".")!]) + ".desc"
            let replay = try replay(device, name, width: 1280, height: 800)
            XCTAssertFalse(replay.contacts.isEmpty, name)
            XCTAssertTrue(replay.contacts.allSatisfy { $0.end == .up }, "\(name): every contact lifts")
        }
    }

    func testTwoFingersTouchAndReleaseAreTwoTaps() throws {
        // EP0430M09: MT-B, 0..1279 x 0..767, on a screen of that size pixel == unit.
        let replay = try replay("EP0430M09.desc", "EP0430M09.2-fingers-touch-release.events",
                                width: 1280, height: 768)
        let contacts = replay.contacts
        XCTAssertEqual(contacts.count, 2)
        XCTAssertEqual(contacts.map(\.id), [1, 2])
        XCTAssertEqual(contacts[0].firstX, 404.5, accuracy: 0.001)
        XCTAssertEqual(contacts[0].firstY, 409.5, accuracy: 0.001)
        XCTAssertEqual(contacts[1].firstX, 933.5, accuracy: 0.001)
        XCTAssertEqual(contacts[1].firstY, 414.5, accuracy: 0.001)
        XCTAssertEqual(contacts[0].downTime, 0, accuracy: 1e-9)
        XCTAssertEqual(contacts[0].upTime!, 0.513463, accuracy: 1e-6)
        XCTAssertEqual(contacts[1].upTime!, 0.527809, accuracy: 1e-6)
        XCTAssertEqual(replay.gestures, [
            .tap(x: 404.5, y: 409.5, touchID: 1),
            .tap(x: 933.5, y: 414.5, touchID: 2),
        ])
    }

    func testDragUpAndDownIsOneContactAndNoGesture() throws {
        let replay = try replay("EP0430M09.desc", "EP0430M09.1-finger-drag-up-down.events",
                                width: 1280, height: 768)
        XCTAssertEqual(replay.contacts.count, 1)
        let contact = replay.contacts[0]
        XCTAssertEqual(contact.firstX, 605.5, accuracy: 0.001)
        XCTAssertEqual(contact.firstY, 136.5, accuracy: 0.001)
        XCTAssertEqual(contact.lastX, 608.5, accuracy: 0.001)
        XCTAssertEqual(contact.lastY, 126.5, accuracy: 0.001)
        XCTAssertEqual(contact.upTime!, 1.433974, accuracy: 1e-6)
        XCTAssertEqual(contact.moves, 181)
        // Down to y=621 and back: it went somewhere and came back, so neither tap nor swipe.
        XCTAssertEqual(replay.gestures, [])
    }

    func testEventsFileWithItsOwnDescriptionReplaysAlone() throws {
        // The 1.3 .events file repeats the description: the single-file form works too.
        let recording = try EvemuRecording.load(fixture("EP0430M09.1-finger-drag-up-down.events"))
        XCTAssertTrue(recording.hasDescription)
        XCTAssertEqual(recording.name, "EP0430M09")
        let replay = try InputReplay(recording: recording,
                                     transform: TouchTransform(displayWidth: 1280, displayHeight: 768))
        XCTAssertEqual(replay.contacts.count, 1)
        XCTAssertEqual(replay.contacts[0].firstY, 136.5, accuracy: 0.001)
    }

    func testQuantaTouchOnLeft() throws {
        // EVEMU 1.1 description (five-field A: lines), range 0..1920 on a 1920-wide screen.
        let replay = try replay("QUANTA_OpticalTouchScreen.desc", "QUANTA_OpticalTouchScreen.touch-on-left.events",
                                width: 1920, height: 1080)
        XCTAssertEqual(replay.contacts.count, 1)
        let contact = replay.contacts[0]
        XCTAssertEqual(contact.firstX, 127.5 / 1921 * 1920, accuracy: 0.001)
        XCTAssertEqual(contact.firstY, 444.5 / 1081 * 1080, accuracy: 0.001)
        XCTAssertEqual(contact.lastY, 504.5 / 1081 * 1080, accuracy: 0.001)
        XCTAssertEqual(contact.upTime!, 0.927996, accuracy: 1e-6)
        // The finger crept ~60 px in 0.93 s: more than a tap or long press may wander,
        // far less than a swipe.
        XCTAssertEqual(replay.gestures, [])
    }

    func testWacomSingleTapCenter() throws {
        let replay = try replay("Wacom_ISDv4_E6_Finger.desc", "Wacom_ISDv4_E6_Finger.single-tap-center.events",
                                width: 1280, height: 800)
        XCTAssertEqual(replay.contacts.count, 1)
        let x = 1269.5 / 2777 * 1280, y = 710.5 / 1570 * 800
        XCTAssertEqual(replay.contacts[0].firstX, x, accuracy: 0.001)
        XCTAssertEqual(replay.contacts[0].firstY, y, accuracy: 0.001)
        XCTAssertEqual(replay.contacts[0].upTime!, 0.024011, accuracy: 1e-6)
        XCTAssertEqual(replay.gestures, [.tap(x: x, y: y, touchID: 1)])
    }

    func testWacomSwipeAlongTheTop() throws {
        let replay = try replay("Wacom_ISDv4_E6_Finger.desc", "Wacom_ISDv4_E6_Finger.single-top-swipe.events",
                                width: 1280, height: 800)
        XCTAssertEqual(replay.contacts.count, 1)
        XCTAssertEqual(replay.contacts[0].moves, 108)
        guard case .swipe(let direction, let fromX, _, let toX, _, 1)? = replay.gestures.first else {
            return XCTFail("expected a swipe, got \(replay.gestures)")
        }
        XCTAssertEqual(replay.gestures.count, 1)
        XCTAssertEqual(direction, .right)
        XCTAssertEqual(fromX, 120.5 / 2777 * 1280, accuracy: 0.001)
        XCTAssertEqual(toX, 2675.5 / 2777 * 1280, accuracy: 0.001)   // last ABS_MT_POSITION_X
    }

    func testRotatedScreenTurnsTheSwipe() throws {
        // The panel is mounted turned: a swipe along its top edge is a different direction
        // on the upright logical screen.
        let expected: [Rotation: SwipeDirection] = [.deg0: .right, .deg90: .up, .deg180: .left, .deg270: .down]
        for (rotation, direction) in expected {
            let replay = try replay("Wacom_ISDv4_E6_Finger.desc", "Wacom_ISDv4_E6_Finger.single-top-swipe.events",
                                    width: 1280, height: 800, rotation: rotation)
            guard case .swipe(let seen, _, _, _, _, _)? = replay.gestures.first else {
                return XCTFail("\(rotation): no swipe")
            }
            XCTAssertEqual(seen, direction, "rotation \(rotation.rawValue)")
        }
    }

    func testReplayCommandPrintsJSONLines() throws {
        let replay = try replay("EP0430M09.desc", "EP0430M09.2-fingers-touch-release.events",
                                width: 1280, height: 768)
        XCTAssertEqual(replay.jsonLines, [
            #"{"type":"contact","id":1,"down":0,"up":0.513463,"end":"up","first":[404.5,409.5],"last":[401.5,410.5],"moves":6}"#,
            #"{"type":"gesture","time":0.513463,"gesture":"tap","id":1,"x":404.5,"y":409.5}"#,
            #"{"type":"contact","id":2,"down":0,"up":0.527809,"end":"up","first":[933.5,414.5],"last":[934.5,416.5],"moves":7}"#,
            #"{"type":"gesture","time":0.527809,"gesture":"tap","id":2,"x":933.5,"y":414.5}"#,
        ])
        for line in replay.jsonLines {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)), line)
        }
    }

    func testReplayCommandArguments() {
        XCTAssertEqual(inputReplayMain([fixture("Wacom_ISDv4_E6_Finger.desc"),
                                        fixture("Wacom_ISDv4_E6_Finger.single-tap-center.events"),
                                        "--size", "800x480", "--rotation", "270",
                                        "--calibration", "1,0,0,0,1,0"]), 0)
        XCTAssertEqual(inputReplayMain(["--rotation", "45", "a", "b"]), 2)
        XCTAssertEqual(inputReplayMain(["--size", "800"]), 2)
        XCTAssertEqual(inputReplayMain(["--calibration", "1,2,3", "a"]), 2)
        XCTAssertEqual(inputReplayMain([]), 2)
        XCTAssertEqual(inputReplayMain(["/nonexistent.desc", "/nonexistent.events"]), 1)
        // The events file alone has no description.
        XCTAssertEqual(inputReplayMain([fixture("Wacom_ISDv4_E6_Finger.single-tap-center.events")]), 1)
    }

    func testJSONNumbers() {
        XCTAssertEqual(json(0.000021, 6), "0.000021")
        XCTAssertEqual(json(404.5, 2), "404.5")
        XCTAssertEqual(json(3, 2), "3")
        XCTAssertEqual(json(-1.25, 2), "-1.25")
        XCTAssertEqual(json(.nan, 2), "null")
    }
}
