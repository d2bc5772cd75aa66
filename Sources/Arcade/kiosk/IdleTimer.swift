import Input

/// When nobody is there: a game left alone goes back to the menu, a menu left alone
/// starts the attract mode, and the first touch on the attract mode only wakes the
/// menu (it is not passed on, so it can't start a game by accident). Pure logic: time
/// comes from the events and from `update(now:)`.
public struct IdleTimer: Sendable {
    public enum Mode: Equatable, Sendable {
        case menu, game, attract
        /// The operator menu: also closed when left alone, so players never find it open.
        case operatorMenu
    }

    public enum Transition: Equatable, Sendable {
        case toMenu, toAttract
    }

    /// What to do with one input event.
    public struct Decision: Equatable, Sendable {
        /// Pass the event on to the scene.
        public var deliver: Bool
        /// Switch screens first (only ever .toMenu, when the attract mode is touched).
        public var transition: Transition?
    }

    /// Seconds without input before a game (or the operator menu) returns to the menu; 0: never.
    public var idleToMenu: Double
    /// Seconds of an untouched menu before the attract mode; 0: never.
    public var menuToAttract: Double
    public private(set) var mode: Mode
    /// When the current idle period began: the last input, or entering the mode.
    public private(set) var idleSince: Double

    /// Touches and keys that woke the attract mode: the rest of them (moves, the lift,
    /// the key release) is swallowed too, or the menu would see a tap.
    private var swallowedTouches: Set<Int> = []
    private var swallowedKeys: Set<Key> = []

    public init(idleToMenu: Double, menuToAttract: Double, mode: Mode = .menu, now: Double) {
        self.idleToMenu = idleToMenu
        self.menuToAttract = menuToAttract
        self.mode = mode
        idleSince = now
    }

    /// The kiosk changed screens by itself (a game chosen, home pressed, operator menu
    /// opened): the idle clock starts again.
    public mutating func enter(_ mode: Mode, now: Double) {
        self.mode = mode
        idleSince = now
    }

    /// Something the person is waiting for is still going (an update installing): as if
    /// they had just touched the screen.
    public mutating func stillWaiting(now: Double) {
        idleSince = max(idleSince, now)
    }

    public mutating func handle(_ event: InputEvent) -> Decision {
        let time: Double
        switch event {
        case .touch(let touch):
            time = touch.time
            if swallowedTouches.contains(touch.id) {
                if touch.phase == .up || touch.phase == .cancel { swallowedTouches.remove(touch.id) }
                idleSince = max(idleSince, time)
                return Decision(deliver: false, transition: nil)
            }
            if mode == .attract {
                if touch.phase == .down || touch.phase == .move { swallowedTouches.insert(touch.id) }
                return wake(at: time)
            }
        case .key(let key):
            time = key.time
            if !key.isPressed && swallowedKeys.contains(key.key) {
                swallowedKeys.remove(key.key)
                idleSince = max(idleSince, time)
                return Decision(deliver: false, transition: nil)
            }
            if mode == .attract {
                if key.isPressed { swallowedKeys.insert(key.key) }
                return wake(at: time)
            }
        }
        idleSince = max(idleSince, time)
        return Decision(deliver: true, transition: nil)
    }

    /// When `update` will next have something to do; nil when nothing is pending
    /// (attract mode, or timeouts of 0). Arm the loop's timer for this.
    public var deadline: Double? {
        switch mode {
        case .game, .operatorMenu: return idleToMenu > 0 ? idleSince + idleToMenu : nil
        case .menu: return menuToAttract > 0 ? idleSince + menuToAttract : nil
        case .attract: return nil
        }
    }

    /// The transition due at `now`, if any; it is applied to `mode` before returning.
    public mutating func update(now: Double) -> Transition? {
        guard let deadline, now >= deadline else { return nil }
        switch mode {
        case .game, .operatorMenu:
            enter(.menu, now: now)
            return .toMenu
        case .menu:
            enter(.attract, now: now)
            return .toAttract
        case .attract:
            return nil
        }
    }

    private mutating func wake(at time: Double) -> Decision {
        enter(.menu, now: max(idleSince, time))
        return Decision(deliver: false, transition: .toMenu)
    }
}
