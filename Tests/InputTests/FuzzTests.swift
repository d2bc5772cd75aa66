import GameCore
import XCTest
import ScreenGeometry
import CEvdev
@testable import Input

final class FuzzTests: XCTestCase {
    /// Random but plausible-looking events: mostly the codes a touch device sends, with
    /// wild values, drops, stray types and resyncs mixed in.
    func randomEvent(_ rng: inout SeededRandom, time: Double) -> RawInputEvent {
        func value(_ range: ClosedRange<Int32>) -> Int32 {
            switch rng.next() % 50 {
            case 0: return Int32.min
            case 1: return Int32.max
            case 2: return Int32(truncatingIfNeeded: rng.next())
            default: return Int32.random(in: range, using: &rng)
            }
        }
        let roll = rng.next() % 1000
        let (type, code, val): (UInt16, UInt16, Int32)
        switch roll {
        case 0..<150: (type, code, val) = (EV.syn, EV.synReport, 0)
        case 150..<153: (type, code, val) = (EV.syn, EV.synDropped, 0)
        case 153..<200: (type, code, val) = (EV.syn, EV.synMTReport, 0)
        case 200..<300: (type, code, val) = (EV.abs, EV.absMTSlot, value(-2...12))
        case 300..<450: (type, code, val) = (EV.abs, EV.absMTTrackingID, value(-1...6))
        case 450..<600: (type, code, val) = (EV.abs, EV.absMTPositionX, value(-100...1400))
        case 600..<750: (type, code, val) = (EV.abs, EV.absMTPositionY, value(-100...900))
        case 750..<800: (type, code, val) = (EV.abs, EV.absX, value(-100...1400))
        case 800..<850: (type, code, val) = (EV.abs, EV.absY, value(-100...900))
        case 850..<920: (type, code, val) = (EV.key, EV.btnTouch, value(0...2))
        case 920..<980: (type, code, val) = (EV.key, EV.btnLeft, value(0...2))
        default:
            (type, code, val) = (UInt16(truncatingIfNeeded: rng.next() % 32),
                                 UInt16(truncatingIfNeeded: rng.next()), value(Int32.min...Int32.max))
        }
        return RawInputEvent(time: time, type: type, code: code, value: val)
    }

    func fuzz(_ touchProtocol: TouchProtocol, events count: Int, seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let transform = TouchTransform(displayWidth: 1280, displayHeight: 800, rotation: .deg90,
                                       calibration: CalibrationMatrix(1.02, 0.01, -0.01, 0, 0.98, 0.01))
        var decoder = TouchDecoder(info: TouchDeviceInfo(touchProtocol: touchProtocol,
                                                         x: AxisRange(minimum: 0, maximum: 1279),
                                                         y: AxisRange(minimum: 0, maximum: 799)),
                                   transform: transform, deviceSerial: 9)
        var live = Set<Int>()
        var seen = Set<Int>()
        var output: [TouchEvent] = []
        var time = 0.0
        var downs = 0
        func check(_ events: [TouchEvent]) {
            for event in events {
                XCTAssertTrue(event.x >= 0 && event.x <= 800 && event.y >= 0 && event.y <= 1280, "\(event)")
                switch event.phase {
                case .down:
                    XCTAssertTrue(seen.insert(event.id).inserted, "id reused: \(event)")
                    live.insert(event.id)
                    downs += 1
                case .move:
                    XCTAssertTrue(live.contains(event.id), "move of a dead contact: \(event)")
                case .up, .cancel:
                    XCTAssertNotNil(live.remove(event.id), "end of a dead contact: \(event)")
                }
            }
        }
        for index in 0..<count {
            time += 0.001
            output.removeAll(keepingCapacity: true)
            // Now and then, what a live device adds: a libevdev resync or an unplug.
            if index % 9973 == 0 { decoder.beginResync() }
            if index % 99991 == 99990 { output += decoder.deviceRemoved(time: time) }
            decoder.handle(randomEvent(&rng, time: time), into: &output)
            if !output.isEmpty { check(output) }
        }
        XCTAssertEqual(Set(decoder.liveContacts), live)

        // The final release, as the kernel sends it when every finger lifts.
        var s = EventScript(time: time + 1)
        s.syn()   // completes whatever frame (or drop) was open
        switch touchProtocol {
        case .slots(let slots):
            for slot in 0..<Int32(slots) {
                s.abs(ABS_MT_SLOT, slot)
                s.abs(ABS_MT_TRACKING_ID, -1)
            }
            s.key(BTN_TOUCH, 0)
        case .anonymous:
            s.key(BTN_TOUCH, 0); s.mtReport()
        case .singleTouch:
            s.key(BTN_TOUCH, 0)
        case .absolutePointer:
            s.key(BTN_LEFT, 0)
        }
        s.syn()
        check(decoder.feed(s))
        XCTAssertEqual(decoder.liveContacts, [], "stuck contact after the final release (\(touchProtocol))")
        XCTAssertEqual(live, [], "stuck contact after the final release (\(touchProtocol))")
        XCTAssertGreaterThan(downs, 100, "the fuzz reached real contacts")
    }

    func testMillionRandomEventsThroughTheDecoder() {
        // 1,000,000 in total, most through protocol B (the richest state machine).
        fuzz(.slots(count: 10), events: 550_000, seed: 1)
        fuzz(.anonymous, events: 150_000, seed: 2)
        fuzz(.singleTouch, events: 150_000, seed: 3)
        fuzz(.absolutePointer, events: 150_000, seed: 4)
    }

    func testKeyMapperStaysBalanced() {
        var rng = SeededRandom(seed: 6)
        let stick = AxisInfo(minimum: 0, maximum: 255), hat = AxisInfo(minimum: -1, maximum: 1)
        var mapper = KeyMapper(axes: [EV.absX: stick, EV.absY: stick, EV.absHat0X: hat, EV.absHat0Y: hat])
        let codes: [Int32] = [KEY_UP, KEY_W, KEY_ENTER, KEY_SPACE, KEY_ESC, BTN_SOUTH, BTN_EAST, BTN_START, BTN_SELECT, KEY_F12]
        let axes: [Int32] = [ABS_X, ABS_Y, ABS_HAT0X, ABS_HAT0Y, ABS_Z]
        var pressed = Set<Key>()
        var output: [KeyEvent] = []
        for index in 0..<100_000 {
            let event: RawInputEvent
            if rng.next() % 2 == 0 {
                event = RawInputEvent(time: Double(index), type: EV.key,
                                      code: UInt16(codes[Int(rng.next() % UInt64(codes.count))]),
                                      value: Int32(rng.next() % 4) - 1)
            } else {
                event = RawInputEvent(time: Double(index), type: EV.abs,
                                      code: UInt16(axes[Int(rng.next() % UInt64(axes.count))]),
                                      value: rng.next() % 20 == 0 ? Int32(truncatingIfNeeded: rng.next())
                                                                  : Int32(rng.next() % 300) - 20)
            }
            output.removeAll(keepingCapacity: true)
            mapper.handle(event, into: &output)
            for key in output {
                if key.isPressed {
                    XCTAssertTrue(pressed.insert(key.key).inserted, "pressed twice: \(key)")
                } else {
                    XCTAssertNotNil(pressed.remove(key.key), "released unpressed: \(key)")
                }
            }
        }
        for key in mapper.releaseAll(time: 1e6) {
            XCTAssertNotNil(pressed.remove(key.key))
        }
        XCTAssertEqual(pressed, [])
    }

    func testEvemuParserSurvivesGarbage() {
        var rng = SeededRandom(seed: 5)
        let alphabet = Array("EABNIP: 0123456789abcdef-.#\n\t x")
        for _ in 0..<2000 {
            let text = String((0..<Int(rng.next() % 120)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            _ = try? EvemuRecording.parse(text, file: "fuzz")
        }
    }
}
