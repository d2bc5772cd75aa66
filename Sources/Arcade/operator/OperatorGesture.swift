import Input

/// Recognizes the way into the operator menu: two fingers held in two opposite corners
/// of the screen at once for `holdSeconds` (players do not do that by chance), or the
/// cabinet's service key. Pure logic: events in, "open" out; time from the events and
/// from `update(now:)`, since a held finger sends nothing.
public struct OperatorGesture: Sendable {
    public enum Corner: Sendable, Equatable {
        case topLeft, topRight, bottomLeft, bottomRight

        var opposite: Corner {
            switch self {
            case .topLeft: return .bottomRight
            case .topRight: return .bottomLeft
            case .bottomLeft: return .topRight
            case .bottomRight: return .topLeft
            }
        }
    }

    public var width: Double
    public var height: Double
    public var holdSeconds: Double
    /// The side of each corner's square, in pixels.
    public var cornerSize: Double

    private var touches: [Int: Corner?] = [:]
    /// When two fingers first sat in opposite corners; nil otherwise.
    private var heldSince: Double?
    /// Fired for the current hold: lift a finger before it can fire again.
    private var fired = false

    /// Corners of 15% of the shorter side, at least 48 px (a fingertip on small panels).
    public init(width: Double, height: Double, holdSeconds: Double = 3, cornerSize: Double? = nil) {
        self.width = width
        self.height = height
        self.holdSeconds = holdSeconds
        self.cornerSize = cornerSize ?? max(48, 0.15 * min(width, height))
    }

    /// Feeds one event; true means "open the operator menu now". The events still go to
    /// the scene as usual: this only watches.
    public mutating func handle(_ event: InputEvent) -> Bool {
        switch event {
        case .key(let key):
            return key.key == .service && key.isPressed
        case .touch(let touch):
            switch touch.phase {
            case .down, .move:
                // .some keeps a finger outside the corners counted (a plain nil would remove it).
                touches[touch.id] = .some(corner(x: touch.x, y: touch.y))
            case .up, .cancel:
                touches.removeValue(forKey: touch.id)
            }
            if holdingOppositeCorners {
                if heldSince == nil { heldSince = touch.time }
            } else {
                heldSince = nil
                fired = false
            }
            return update(now: touch.time)
        }
    }

    /// When `update` may fire; nil when no hold is in progress. Arm the loop's timer for it.
    public var deadline: Double? {
        guard let heldSince, !fired else { return nil }
        return heldSince + holdSeconds
    }

    public mutating func update(now: Double) -> Bool {
        guard let deadline, now >= deadline else { return false }
        fired = true
        return true
    }

    public func corner(x: Double, y: Double) -> Corner? {
        let left = x < cornerSize, right = x >= width - cornerSize
        let top = y < cornerSize, bottom = y >= height - cornerSize
        switch (left, right, top, bottom) {
        case (true, _, true, _): return .topLeft
        case (_, true, true, _): return .topRight
        case (true, _, _, true): return .bottomLeft
        case (_, true, _, true): return .bottomRight
        default: return nil
        }
    }

    /// Exactly two fingers down, in opposite corners; a third finger anywhere breaks it.
    private var holdingOppositeCorners: Bool {
        guard touches.count == 2 else { return false }
        let corners = touches.values.compactMap { $0 }
        guard corners.count == 2 else { return false }
        return corners[0].opposite == corners[1]
    }
}
