import CEvdev

/// One evdev event as the kernel (or an evemu recording) delivers it, with its
/// timestamp in seconds. Every decoder in this module is fed these.
public struct RawInputEvent: Sendable, Equatable {
    public var time: Double
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Double, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The evdev constants this module uses, typed as they appear in `input_event`
/// (linux/input-event-codes.h via CEvdev), so comparisons need no casts.
enum EV {
    static let syn = UInt16(EV_SYN)
    static let key = UInt16(EV_KEY)
    static let rel = UInt16(EV_REL)
    static let abs = UInt16(EV_ABS)
    static let sw = UInt16(EV_SW)

    static let synReport = UInt16(SYN_REPORT)
    static let synMTReport = UInt16(SYN_MT_REPORT)
    static let synDropped = UInt16(SYN_DROPPED)

    static let absX = UInt16(ABS_X)
    static let absY = UInt16(ABS_Y)
    static let absHat0X = UInt16(ABS_HAT0X)
    static let absHat0Y = UInt16(ABS_HAT0Y)
    static let absMTSlot = UInt16(ABS_MT_SLOT)
    static let absMTPositionX = UInt16(ABS_MT_POSITION_X)
    static let absMTPositionY = UInt16(ABS_MT_POSITION_Y)
    static let absMTTrackingID = UInt16(ABS_MT_TRACKING_ID)

    static let btnTouch = UInt16(BTN_TOUCH)
    static let btnLeft = UInt16(BTN_LEFT)
    static let btnToolFinger = UInt16(BTN_TOOL_FINGER)
    static let btnJoystickFirst = UInt16(BTN_JOYSTICK)   // BTN_TRIGGER .. BTN_DEAD
    static let btnJoystickLast = UInt16(BTN_DEAD)
    static let btnGamepadFirst = UInt16(BTN_GAMEPAD)     // BTN_SOUTH .. BTN_THUMBR
    static let btnGamepadLast = UInt16(BTN_THUMBR)

    static let propPointer = UInt16(INPUT_PROP_POINTER)
    static let propDirect = UInt16(INPUT_PROP_DIRECT)
}
