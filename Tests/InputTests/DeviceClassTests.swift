import XCTest
import CEvdev
@testable import Input

final class DeviceClassTests: XCTestCase {
    func codes(_ values: [Int32]) -> Set<UInt16> { Set(values.map { UInt16($0) }) }
    func axes(_ values: [Int32], min: Int32 = 0, max: Int32 = 4095) -> [UInt16: AxisInfo] {
        Dictionary(uniqueKeysWithValues: values.map { (UInt16($0), AxisInfo(minimum: min, maximum: max)) })
    }

    func testRecordedPanelsAreProtocolB() throws {
        for (desc, slots) in [("EP0430M09.desc", 5), ("QUANTA_OpticalTouchScreen.desc", 10), ("Wacom_ISDv4_E6_Finger.desc", 2)] {
            let recording = try EvemuRecording.load(fixture(desc))
            XCTAssertEqual(recording.capabilities.classify(),
                           .touch(TouchDeviceInfo(touchProtocol: .slots(count: slots),
                                                  x: recording.axes[EV.absMTPositionX]!.range,
                                                  y: recording.axes[EV.absMTPositionY]!.range)), desc)
        }
    }

    func testProtocolAPanel() {
        let caps = DeviceCapabilities(name: "eGalax", keys: codes([BTN_TOUCH]),
                                      absolute: axes([ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y]))
        guard case .touch(let info) = caps.classify() else { return XCTFail() }
        XCTAssertEqual(info.touchProtocol, .anonymous)
    }

    func testResistiveSingleTouchAndQemuTablet() {
        let ads = DeviceCapabilities(name: "ADS7846 Touchscreen", keys: codes([BTN_TOUCH]),
                                     absolute: axes([ABS_X, ABS_Y, ABS_PRESSURE]))
        guard case .touch(let a) = ads.classify() else { return XCTFail() }
        XCTAssertEqual(a.touchProtocol, .singleTouch)
        let tablet = DeviceCapabilities(name: "QEMU Virtio Tablet", keys: codes([BTN_LEFT, BTN_RIGHT, BTN_MIDDLE]),
                                        absolute: axes([ABS_X, ABS_Y], max: 32767), relative: codes([REL_WHEEL]))
        guard case .touch(let t) = tablet.classify() else { return XCTFail() }
        XCTAssertEqual(t.touchProtocol, .absolutePointer)
        XCTAssertEqual(t.x, AxisRange(minimum: 0, maximum: 32767))
    }

    func testKeyboardsGamepadsAndEncoders() {
        let keyboard = DeviceCapabilities(name: "AT Translated Set 2 keyboard",
                                          keys: codes(Array(KEY_ESC...KEY_D) + [KEY_UP, KEY_DOWN, KEY_F12]))
        XCTAssertEqual(keyboard.classify(), .keys(KeyDeviceInfo(isGamepad: false)))
        let pad = DeviceCapabilities(name: "Xbox", keys: codes([BTN_SOUTH, BTN_EAST, BTN_START, BTN_SELECT]),
                                     absolute: axes([ABS_X, ABS_Y, ABS_RX, ABS_HAT0X, ABS_HAT0Y], min: -32768, max: 32767))
        guard case .keys(let info) = pad.classify() else { return XCTFail() }
        XCTAssertTrue(info.isGamepad)
        XCTAssertEqual(Set(info.axes.keys), codes([ABS_X, ABS_Y, ABS_HAT0X, ABS_HAT0Y]))
        let encoder = DeviceCapabilities(name: "DragonRise Generic USB Joystick",
                                         keys: codes(Array(BTN_TRIGGER...BTN_BASE6)), absolute: axes([ABS_X, ABS_Y], max: 255))
        guard case .keys(let e) = encoder.classify() else { return XCTFail() }
        XCTAssertTrue(e.isGamepad)
        let gpioPanel = DeviceCapabilities(name: "gpio-keys", keys: codes([KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT, KEY_LEFTCTRL, KEY_LEFTALT]))
        XCTAssertEqual(gpioPanel.classify(), .keys(KeyDeviceInfo(isGamepad: false)))
    }

    func testPhantomDevicesAreIgnored() {
        let power = DeviceCapabilities(name: "Power Button", keys: codes([KEY_POWER]))
        let lid = DeviceCapabilities(name: "Lid Switch", switches: codes([SW_LID]))
        let cec = DeviceCapabilities(name: "vc4-hdmi", keys: codes([KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT, KEY_ENTER, KEY_OK,
                                                                     KEY_EXIT, KEY_NUMERIC_0, KEY_NUMERIC_1, KEY_PLAY]))
        let mouse = DeviceCapabilities(name: "mouse", keys: codes([BTN_LEFT, BTN_RIGHT]), relative: codes([REL_X, REL_Y]))
        let touchpad = DeviceCapabilities(name: "SynPS/2", keys: codes([BTN_LEFT, BTN_TOUCH, BTN_TOOL_FINGER]),
                                          absolute: axes([ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y]),
                                          properties: codes([INPUT_PROP_POINTER]))
        let nothing = DeviceCapabilities(name: "pcspkr")
        for caps in [power, lid, cec, mouse, touchpad, nothing] {
            guard case .ignored = caps.classify() else { return XCTFail("\(caps.name): \(caps.classify())") }
        }
    }
}
