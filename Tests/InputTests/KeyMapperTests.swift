import XCTest
import CEvdev
@testable import Input

final class KeyMapperTests: XCTestCase {
    func key(_ code: Int32, _ value: Int32, at time: Double = 1) -> RawInputEvent {
        RawInputEvent(time: time, type: EV.key, code: UInt16(code), value: value)
    }
    func axis(_ code: Int32, _ value: Int32, at time: Double = 1) -> RawInputEvent {
        RawInputEvent(time: time, type: EV.abs, code: UInt16(code), value: value)
    }
    func run(_ mapper: inout KeyMapper, _ events: [RawInputEvent]) -> [String] {
        events.flatMap { mapper.handle($0) }.map { "\($0.key.rawValue)\($0.isPressed ? "+" : "-")" }
    }

    func testKeyboard() {
        var mapper = KeyMapper()
        let pairs: [(Int32, Key)] = [
            (KEY_UP, .up), (KEY_W, .up), (KEY_DOWN, .down), (KEY_S, .down),
            (KEY_LEFT, .left), (KEY_A, .left), (KEY_RIGHT, .right), (KEY_D, .right),
            (KEY_ENTER, .confirm), (KEY_SPACE, .confirm), (KEY_KPENTER, .confirm),
            (KEY_ESC, .back), (KEY_BACKSPACE, .back), (KEY_F12, .service),
        ]
        for (code, expected) in pairs {
            XCTAssertEqual(mapper.handle(key(code, 1)), [KeyEvent(key: expected, isPressed: true, time: 1)])
            XCTAssertEqual(mapper.handle(key(code, 2)), [], "autorepeat is not a press")
            XCTAssertEqual(mapper.handle(key(code, 0, at: 2)), [KeyEvent(key: expected, isPressed: false, time: 2)])
        }
        XCTAssertEqual(mapper.handle(key(KEY_Q, 1)), [], "unmapped keys say nothing")
    }

    func testTwoSourcesOfOneKeyAreOnePress() {
        var mapper = KeyMapper()
        XCTAssertEqual(run(&mapper, [key(KEY_W, 1), key(KEY_UP, 1), key(KEY_W, 0), key(KEY_UP, 0)]),
                       ["up+", "up-"])
        XCTAssertEqual(run(&mapper, [key(KEY_UP, 0)]), [], "a release without a press is nothing")
    }

    func testGamepadAndArcadeButtons() {
        var mapper = KeyMapper()
        XCTAssertEqual(run(&mapper, [key(BTN_SOUTH, 1), key(BTN_SOUTH, 0), key(BTN_EAST, 1), key(BTN_EAST, 0),
                                     key(BTN_START, 1), key(BTN_START, 0), key(BTN_SELECT, 1), key(BTN_SELECT, 0)]),
                       ["confirm+", "confirm-", "back+", "back-", "start+", "start-", "select+", "select-"])
        // A generic USB arcade encoder numbers its buttons from BTN_TRIGGER.
        XCTAssertEqual(run(&mapper, [key(BTN_TRIGGER, 1), key(BTN_THUMB, 1), key(BTN_TRIGGER, 0), key(BTN_THUMB, 0)]),
                       ["confirm+", "back+", "confirm-", "back-"])
        XCTAssertEqual(run(&mapper, [key(BTN_DPAD_LEFT, 1), key(BTN_DPAD_LEFT, 0)]), ["left+", "left-"])
    }

    func testStickDeadzoneAndHysteresis() {
        // A zero-delay encoder's stick: 0..255, resting at 127/128.
        let stick = AxisInfo(minimum: 0, maximum: 255)
        var mapper = KeyMapper(axes: [EV.absX: stick, EV.absY: stick], deadzone: 0.5)
        XCTAssertEqual(run(&mapper, [axis(ABS_X, 128), axis(ABS_X, 140), axis(ABS_X, 180)]), [],
                       "inside the deadzone")
        XCTAssertEqual(run(&mapper, [axis(ABS_X, 250)]), ["right+"])
        XCTAssertEqual(run(&mapper, [axis(ABS_X, 255), axis(ABS_X, 190)]), [], "held, and resting near the edge")
        XCTAssertEqual(run(&mapper, [axis(ABS_X, 150)]), ["right-"])
        XCTAssertEqual(run(&mapper, [axis(ABS_X, 0)]), ["left+"])
        XCTAssertEqual(run(&mapper, [axis(ABS_X, 255)]), ["left-", "right+"], "straight across")
        XCTAssertEqual(run(&mapper, [axis(ABS_Y, 0), axis(ABS_Y, 127)]), ["up+", "up-"])
        XCTAssertEqual(run(&mapper, [axis(ABS_Y, 255)]), ["down+"])
        XCTAssertEqual(mapper.releaseAll(time: 5).map(\.key), [.down, .right])
        XCTAssertEqual(run(&mapper, [axis(ABS_RX, 255)]), [], "axes not declared are ignored")
    }

    func testHatAndStickTogether() {
        let hat = AxisInfo(minimum: -1, maximum: 1)
        var mapper = KeyMapper(axes: [EV.absHat0X: hat, EV.absHat0Y: hat, EV.absY: AxisInfo(minimum: -32768, maximum: 32767)])
        XCTAssertEqual(run(&mapper, [axis(ABS_HAT0Y, -1), axis(ABS_Y, -32768), axis(ABS_HAT0Y, 0), axis(ABS_Y, 0)]),
                       ["up+", "up-"], "one press while either holds up")
        XCTAssertEqual(run(&mapper, [axis(ABS_HAT0X, 1), axis(ABS_HAT0X, -1), axis(ABS_HAT0X, 0)]),
                       ["right+", "right-", "left+", "left-"])
    }

    func testReleaseAllOnRemoval() {
        var mapper = KeyMapper()
        _ = run(&mapper, [key(KEY_ENTER, 1), key(KEY_LEFT, 1)])
        XCTAssertEqual(Set(mapper.releaseAll(time: 9).map(\.key)), [.confirm, .left])
        XCTAssertEqual(mapper.releaseAll(time: 10), [])
    }

    func testKeyboardPolicies() {
        let typing: [Int32] = [KEY_W, KEY_A, KEY_SPACE, KEY_BACKSPACE, KEY_LEFTCTRL, KEY_LEFTALT, KEY_1, KEY_KP5, KEY_C, KEY_Z, KEY_F2]
        let controls: [(Int32, Key)] = [(KEY_UP, .up), (KEY_DOWN, .down), (KEY_LEFT, .left), (KEY_RIGHT, .right),
                                        (KEY_ENTER, .confirm), (KEY_KPENTER, .confirm), (KEY_ESC, .back), (KEY_F12, .service)]
        let buttons: [(Int32, Key)] = [(BTN_SOUTH, .confirm), (BTN_EAST, .back), (BTN_START, .start), (BTN_DPAD_UP, .up)]
        for (code, key) in controls + buttons {
            XCTAssertEqual(KeyMapper.key(forCode: UInt16(code), policy: .all), key)
            XCTAssertEqual(KeyMapper.key(forCode: UInt16(code), policy: .controls), key)
        }
        for code in typing { XCTAssertNil(KeyMapper.key(forCode: UInt16(code), policy: .controls), "\(code)") }
        for (code, _) in controls { XCTAssertNil(KeyMapper.key(forCode: UInt16(code), policy: .none)) }
        for (code, key) in buttons { XCTAssertEqual(KeyMapper.key(forCode: UInt16(code), policy: .none), key) }
        // Digits type into the PIN pad under "all", top row and keypad alike.
        XCTAssertEqual(KeyMapper.key(forCode: UInt16(KEY_1), policy: .all), .digit1)
        XCTAssertEqual(KeyMapper.key(forCode: UInt16(KEY_KP0), policy: .all), .digit0)
        XCTAssertEqual((0...9).map { Key(rawValue: "digit\($0)")?.digit }, Array(0...9))
        var mapper = KeyMapper(policy: .controls)
        XCTAssertEqual(run(&mapper, [key(KEY_C, 1), key(KEY_C, 0), key(KEY_UP, 1), key(KEY_UP, 0)]), ["up+", "up-"])
    }
}
