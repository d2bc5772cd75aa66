/// How an attract-mode player takes its time, like a person at the screen: one move every
/// `interval` seconds, and a pause of `restartDelay` on a finished game before the next.
public struct AutoplayPace: Sendable {
    public let interval: Double
    public let restartDelay: Double
    private var clock = 0.0

    public init(interval: Double, restartDelay: Double = 2.5) {
        self.interval = interval
        self.restartDelay = restartDelay
    }

    /// Starts counting again (a new game, attract mode switched on).
    public mutating func reset() { clock = 0 }

    /// `dt` seconds pass; true when the next move is due (and the count starts again).
    public mutating func moveDue(after dt: Double) -> Bool { due(after: dt, interval) }

    /// `dt` seconds pass on a finished game; true when the next game should start.
    public mutating func restartDue(after dt: Double) -> Bool { due(after: dt, restartDelay) }

    private mutating func due(after dt: Double, _ wait: Double) -> Bool {
        clock += dt
        guard clock >= wait else { return false }
        clock = 0
        return true
    }
}
