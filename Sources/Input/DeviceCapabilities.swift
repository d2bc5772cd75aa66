import CEvdev

/// What a device can report, read from the kernel (libevdev) or from an evemu description.
/// Devices are chosen by these, never by name.
public struct DeviceCapabilities: Sendable, Equatable {
    public var name: String
    public var keys: Set<UInt16>
    public var absolute: [UInt16: AxisInfo]
    public var relative: Set<UInt16>
    public var switches: Set<UInt16>
    public var properties: Set<UInt16>

    public init(name: String, keys: Set<UInt16> = [], absolute: [UInt16: AxisInfo] = [:],
                relative: Set<UInt16> = [], switches: Set<UInt16> = [], properties: Set<UInt16> = []) {
        self.name = name
        self.keys = keys
        self.absolute = absolute
        self.relative = relative
        self.switches = switches
        self.properties = properties
    }
}

/// What the kiosk makes of a device.
public enum DeviceClass: Sendable, Equatable {
    case touch(TouchDeviceInfo)
    /// Keyboards, keypads, gamepads and arcade encoders: all mapped to `Key`s.
    case keys(KeyDeviceInfo)
    case ignored(reason: String)

    public var summary: String {
        switch self {
        case .touch(let info):
            switch info.touchProtocol {
            case .slots(let count): return "touchscreen (multitouch B, \(count) slots)"
            case .anonymous: return "touchscreen (multitouch A)"
            case .singleTouch: return "touchscreen (single touch)"
            case .absolutePointer: return "absolute pointer (as one finger)"
            }
        case .keys(let info): return info.isGamepad ? "gamepad/arcade controls" : "keyboard"
        case .ignored(let reason): return "ignored (\(reason))"
        }
    }
}

public struct KeyDeviceInfo: Sendable, Equatable {
    public var isGamepad: Bool
    /// Stick and hat axes that become directions.
    public var axes: [UInt16: AxisInfo]

    public init(isGamepad: Bool, axes: [UInt16: AxisInfo] = [:]) {
        self.isGamepad = isGamepad
        self.axes = axes
    }
}

extension DeviceCapabilities {
    private func has(_ code: Int32) -> Bool { keys.contains(UInt16(code)) }
    private func hasAbs(_ code: UInt16) -> Bool { absolute[code] != nil }

    public func classify() -> DeviceClass {
        let direct = properties.contains(EV.propDirect)
        // A touchpad moves a cursor we don't have; panels are direct or say nothing.
        let touchpad = !direct && (properties.contains(EV.propPointer) || keys.contains(EV.btnToolFinger))

        let joystickButtons = keys.contains { ($0 >= EV.btnJoystickFirst && $0 <= EV.btnJoystickLast)
            || ($0 >= EV.btnGamepadFirst && $0 <= EV.btnGamepadLast) }
        // Checked before touch: sticks report ABS_X/ABS_Y too.
        if joystickButtons && !hasAbs(EV.absMTPositionX) {
            var axes: [UInt16: AxisInfo] = [:]
            for code in [EV.absX, EV.absY, EV.absHat0X, EV.absHat0Y] {
                if let info = absolute[code] { axes[code] = info }
            }
            return .keys(KeyDeviceInfo(isGamepad: true, axes: axes))
        }

        if let mtX = absolute[EV.absMTPositionX], let mtY = absolute[EV.absMTPositionY] {
            if touchpad { return .ignored(reason: "touchpad") }
            if let slot = absolute[EV.absMTSlot] {
                let count = Int(slot.maximum) - Int(slot.minimum) + 1
                guard count >= 1 else { return .ignored(reason: "bad ABS_MT_SLOT range") }
                return .touch(TouchDeviceInfo(touchProtocol: .slots(count: count),
                                              x: mtX.range, y: mtY.range,
                                              initialSlot: Int(slot.value)))
            }
            return .touch(TouchDeviceInfo(touchProtocol: .anonymous, x: mtX.range, y: mtY.range))
        }

        if let ax = absolute[EV.absX], let ay = absolute[EV.absY] {
            if touchpad { return .ignored(reason: "touchpad") }
            if keys.contains(EV.btnTouch) {
                return .touch(TouchDeviceInfo(touchProtocol: .singleTouch, x: ax.range, y: ay.range))
            }
            // A wheel is fine (QEMU's tablet has one); relative X/Y make it a mouse.
            let movesRelative = relative.contains(UInt16(REL_X)) || relative.contains(UInt16(REL_Y))
            if keys.contains(EV.btnLeft) && !movesRelative {
                return .touch(TouchDeviceInfo(touchProtocol: .absolutePointer, x: ax.range, y: ay.range))
            }
        }

        if isFullKeyboard || isArcadeKeypad {
            return .keys(KeyDeviceInfo(isGamepad: false))
        }
        if !relative.isEmpty { return .ignored(reason: "relative pointer") }
        if !switches.isEmpty && keys.isEmpty { return .ignored(reason: "switches only (lid, dock)") }
        return .ignored(reason: "no touch, keyboard or game controls")
    }

    /// udev's rule for ID_INPUT_KEYBOARD: all of KEY_ESC .. KEY_D (the first 32 codes but
    /// KEY_RESERVED). Power buttons, HDMI-CEC and IR remotes fail it.
    var isFullKeyboard: Bool {
        (Int32(KEY_ESC)...Int32(KEY_D)).allSatisfy { has($0) }
    }

    /// Buttons wired to GPIO or a keyboard encoder: arrows plus a confirm key, and none of
    /// the number keys that remote controls (HDMI-CEC, IR) carry.
    var isArcadeKeypad: Bool {
        let arrows = [KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT].allSatisfy { has($0) }
        let confirm = [KEY_ENTER, KEY_SPACE, KEY_LEFTCTRL].contains { has($0) }
        let remote = [KEY_NUMERIC_0, KEY_OK, KEY_CHANNELUP, KEY_EXIT].contains { has($0) }
        return arrows && confirm && !remote
    }
}
