import CEvdev

/// Keyboards, keypads, gamepads and arcade encoders -> `KeyEvent`s. Edge-triggered: one
/// press when a logical key's first source goes down, one release when its last source goes
/// up, so holding W and Up together is one `up` press; autorepeat is ignored.
public struct KeyMapper: Sendable {
    /// Sticks: a direction is pressed beyond this fraction of full travel...
    public var deadzone: Double
    /// ...and released again below this one, so a stick resting near the edge can't chatter.
    public var releaseThreshold: Double { deadzone * 0.75 }

    /// The key code the coin mech sends (a gpio-keys pin, an encoder input): `.coin`.
    /// Set only on the mech's own device (`CoinMech`).
    public var coinCode: UInt16?
    /// When the last coin counted (event time): presses closer than
    /// `CoinMech.minimumInterval` after it are bounced.
    private var lastCoinTime = -Double.infinity
    private let axes: [UInt16: AxisInfo]
    private var held: [Key: Set<Int>] = [:]
    private var axisDirection: [UInt16: Int] = [:]   // -1, 0, +1 per axis

    public let policy: KeyboardPolicy

    public init(axes: [UInt16: AxisInfo] = [:], deadzone: Double = 0.5, policy: KeyboardPolicy = .all) {
        self.axes = axes
        self.deadzone = min(max(deadzone, 0.05), 0.95)
        self.policy = policy
    }

    /// The logical key of a keyboard key or button under `policy`, if it has one.
    public static func key(forCode code: UInt16, policy: KeyboardPolicy = .all) -> Key? {
        // Codes below BTN_MISC are a keyboard's keys; from it on, controllers' buttons.
        guard Int32(code) < BTN_MISC else { return key(forCode: code) }
        switch policy {
        case .all: return key(forCode: code)
        case .none: return nil
        case .controls:
            switch Int32(code) {
            case KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT, KEY_ENTER, KEY_KPENTER, KEY_ESC, KEY_F12:
                return key(forCode: code)
            default: return nil
            }
        }
    }

    /// The logical key of a keyboard key or button, if it has one (every mapped key).
    public static func key(forCode code: UInt16) -> Key? {
        switch Int32(code) {
        case KEY_UP, KEY_W, BTN_DPAD_UP: return .up
        case KEY_DOWN, KEY_S, BTN_DPAD_DOWN: return .down
        case KEY_LEFT, KEY_A, BTN_DPAD_LEFT: return .left
        case KEY_RIGHT, KEY_D, BTN_DPAD_RIGHT: return .right
        // Arcade keyboard encoders (I-PAC and friends) send left Ctrl/Alt for buttons 1/2
        // and 1 for player-one start.
        case KEY_ENTER, KEY_KPENTER, KEY_SPACE, KEY_LEFTCTRL: return .confirm
        case KEY_ESC, KEY_BACKSPACE, KEY_LEFTALT: return .back
        case KEY_F12: return .service
        case KEY_0, KEY_KP0: return .digit0
        case KEY_1, KEY_KP1: return .digit1
        case KEY_2, KEY_KP2: return .digit2
        case KEY_3, KEY_KP3: return .digit3
        case KEY_4, KEY_KP4: return .digit4
        case KEY_5, KEY_KP5: return .digit5
        case KEY_6, KEY_KP6: return .digit6
        case KEY_7, KEY_KP7: return .digit7
        case KEY_8, KEY_KP8: return .digit8
        case KEY_9, KEY_KP9: return .digit9
        // Gamepads: south (A) confirms, east (B) goes back. Generic joysticks and the
        // USB arcade encoders number their buttons from BTN_TRIGGER.
        case BTN_SOUTH, BTN_TRIGGER: return .confirm
        case BTN_EAST, BTN_THUMB: return .back
        case BTN_START, BTN_BASE4: return .start
        case BTN_SELECT, BTN_BASE3: return .select
        default: return nil
        }
    }

    /// A key or button code from its kernel name ("KEY_5", "BTN_TRIGGER_HAPPY1") or number.
    public static func code(named name: String) -> UInt16? {
        if let number = UInt16(name), number > 0, number < UInt16(KEY_CNT) { return number }
        let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
        return code > 0 ? UInt16(code) : nil
    }

    /// The kernel's name of a key code ("KEY_5"), or its number.
    public static func name(ofCode code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)).map { String(cString: $0) } ?? String(code)
    }

    public mutating func handle(_ event: RawInputEvent) -> [KeyEvent] {
        var output: [KeyEvent] = []
        handle(event, into: &output)
        return output
    }

    public mutating func handle(_ event: RawInputEvent, into output: inout [KeyEvent]) {
        if event.type == EV.key {
            guard let key = event.code == coinCode ? .coin : Self.key(forCode: event.code, policy: policy) else { return }
            if key == .coin, event.value == 1 {
                guard event.time - lastCoinTime >= CoinMech.minimumInterval else { return }
                lastCoinTime = event.time
            }
            let source = Int(event.code)
            switch event.value {
            case 0: release(key, source: source, time: event.time, into: &output)
            case 1: press(key, source: source, time: event.time, into: &output)
            default: break   // 2 = autorepeat
            }
        } else if event.type == EV.abs {
            handleAxis(event, into: &output)
        }
    }

    /// Releases everything held (device removed).
    public mutating func releaseAll(time: Double) -> [KeyEvent] {
        var output: [KeyEvent] = []
        for key in Key.allCases where !(held[key]?.isEmpty ?? true) {
            output.append(KeyEvent(key: key, isPressed: false, time: time))
        }
        held.removeAll()
        axisDirection.removeAll()
        return output
    }

    private mutating func press(_ key: Key, source: Int, time: Double, into output: inout [KeyEvent]) {
        var sources = held[key] ?? []
        let wasEmpty = sources.isEmpty
        guard sources.insert(source).inserted else { return }
        held[key] = sources
        if wasEmpty { output.append(KeyEvent(key: key, isPressed: true, time: time)) }
    }

    private mutating func release(_ key: Key, source: Int, time: Double, into output: inout [KeyEvent]) {
        guard var sources = held[key], sources.remove(source) != nil else { return }
        held[key] = sources
        if sources.isEmpty { output.append(KeyEvent(key: key, isPressed: false, time: time)) }
    }

    private mutating func handleAxis(_ event: RawInputEvent, into output: inout [KeyEvent]) {
        guard let info = axes[event.code] else { return }
        let (negative, positive): (Key, Key)
        switch event.code {
        case EV.absX, EV.absHat0X: (negative, positive) = (.left, .right)
        case EV.absY, EV.absHat0Y: (negative, positive) = (.up, .down)
        default: return
        }
        let center = (Double(info.minimum) + Double(info.maximum)) / 2
        let half = (Double(info.maximum) - Double(info.minimum)) / 2
        guard half > 0 else { return }
        let position = (Double(event.value) - center) / half
        let old = axisDirection[event.code] ?? 0
        var new = old
        if old == 0 {
            if position >= deadzone { new = 1 } else if position <= -deadzone { new = -1 }
        } else {
            let along = position * Double(old)
            if along < releaseThreshold {
                new = position >= deadzone ? 1 : (position <= -deadzone ? -1 : 0)
            }
        }
        guard new != old else { return }
        axisDirection[event.code] = new
        // Axis sources live above the key code space.
        let source = 0x10000 + Int(event.code)
        if old != 0 { release(old < 0 ? negative : positive, source: source, time: event.time, into: &output) }
        if new != 0 { press(new < 0 ? negative : positive, source: source, time: event.time, into: &output) }
    }
}
