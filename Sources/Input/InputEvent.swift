/// The small event vocabulary every device is mapped to before a scene sees it.
/// Touch coordinates are screen pixels with calibration and rotation already applied.

public enum TouchPhase: Sendable, Equatable {
    case down, move, up
    /// The contact ended without a real lift (device vanished, SYN_DROPPED resync).
    case cancel
}

public struct TouchEvent: Sendable, Equatable {
    public var phase: TouchPhase
    /// Stable for one contact from down to up/cancel; unique across devices.
    public var id: Int
    public var x: Double
    public var y: Double
    /// Monotonic seconds.
    public var time: Double

    public init(phase: TouchPhase, id: Int, x: Double, y: Double, time: Double) {
        self.phase = phase
        self.id = id
        self.x = x
        self.y = y
        self.time = time
    }
}

/// Keys and arcade controls, already merged: arrows/WASD/stick are directions,
/// enter/space/button A is confirm, escape/backspace/button B is back.
public enum Key: String, Sendable, Equatable, CaseIterable {
    case up, down, left, right
    case confirm, back
    /// A cabinet's service button or F12: opens the operator menu.
    case service
    /// A coin-op start button.
    case start
    /// A gamepad's select / an arcade panel's second function button.
    case select
    /// Digits typed on a keyboard (top row or keypad): the operator's PIN pad takes them.
    /// Anywhere else 1 is player one's start, as arcade keyboard encoders send it.
    case digit0, digit1, digit2, digit3, digit4, digit5, digit6, digit7, digit8, digit9

    /// A coin dropped through the coin mech (the board profile's `[coin] key`).
    case coin

    /// 0...9 for a digit key.
    public var digit: Int? {
        switch self {
        case .digit0: 0
        case .digit1: 1
        case .digit2: 2
        case .digit3: 3
        case .digit4: 4
        case .digit5: 5
        case .digit6: 6
        case .digit7: 7
        case .digit8: 8
        case .digit9: 9
        default: nil
        }
    }
}

/// Which keys of a keyboard the kiosk takes (`[input] keyboards`). Game controllers'
/// buttons and sticks count whatever the policy: they cannot type.
public enum KeyboardPolicy: String, Sendable, Equatable, CaseIterable {
    /// Every mapped key: arrows and WASD, Enter/Space, Esc/Backspace, F12, digits, the keys
    /// arcade keyboard encoders send (left Ctrl/Alt, 1).
    case all
    /// Only the controls: arrows, Enter (confirm), Esc (back), F12 (service). A full keyboard
    /// plugged into a cabinet can move and choose, but not type.
    case controls
    /// No keyboard keys at all; game controllers only.
    case none
}

public struct KeyEvent: Sendable, Equatable {
    public var key: Key
    public var isPressed: Bool
    public var time: Double

    public init(key: Key, isPressed: Bool, time: Double) {
        self.key = key
        self.isPressed = isPressed
        self.time = time
    }
}

public enum InputEvent: Sendable, Equatable {
    case touch(TouchEvent)
    case key(KeyEvent)
}

public enum SwipeDirection: String, Sendable, Equatable, CaseIterable {
    case up, down, left, right
}

/// What the gesture recognizer makes of touch streams. Points are screen pixels.
public enum Gesture: Sendable, Equatable {
    case tap(x: Double, y: Double, touchID: Int)
    case swipe(SwipeDirection, fromX: Double, fromY: Double, toX: Double, toY: Double, touchID: Int)
    case longPress(x: Double, y: Double, touchID: Int)
}
