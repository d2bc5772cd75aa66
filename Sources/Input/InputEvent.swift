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
