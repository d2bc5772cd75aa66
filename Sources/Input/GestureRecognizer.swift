/// Tap, swipe and long press from touch streams, each finger on its own.
///
/// Pure: fed `TouchEvent`s and the clock through `update(now:)` (a long press fires while
/// the finger is still down, so it needs time to pass without events). Distances are in
/// screen pixels, derived from thresholds in points and the screen's pixels per point.
public struct GestureRecognizer: Sendable {
    public struct Thresholds: Sendable, Equatable {
        /// A tap or long press may wander this far (points) from where it landed.
        public var slop: Double = 12
        /// A swipe travels at least this far (points) along its axis.
        public var swipeDistance: Double = 40
        /// The swipe's axis must beat the other one by this factor (diagonals are nothing).
        public var swipeDominance: Double = 1.2
        /// Held still this long (seconds) is a long press; released sooner is a tap.
        public var longPressDelay: Double = 0.6

        public init() {}
    }

    public let pixelsPerPoint: Double
    public var thresholds: Thresholds

    private struct Track {
        var startX: Double
        var startY: Double
        var startTime: Double
        var lastX: Double
        var lastY: Double
        var wandered = false
        var longPressed = false
    }
    private var tracks: [Int: Track] = [:]

    public init(pixelsPerPoint: Double = 1, thresholds: Thresholds = Thresholds()) {
        self.pixelsPerPoint = pixelsPerPoint.isFinite && pixelsPerPoint > 0 ? pixelsPerPoint : 1
        self.thresholds = thresholds
    }

    private var slopPixels: Double { thresholds.slop * pixelsPerPoint }
    private var swipePixels: Double { thresholds.swipeDistance * pixelsPerPoint }

    /// Fingers being tracked.
    public var activeTouches: Int { tracks.count }

    /// When `update(now:)` must next run for a long press to fire on time (nil: nothing pending).
    public var nextDeadline: Double? {
        tracks.values.filter { !$0.wandered && !$0.longPressed }.map(longPressDeadline).min()
    }

    /// The one definition of when a long press is due. Compared as `now >= start + delay`,
    /// never `now - start >= delay`: at epoch-sized timestamps `(start + delay) - start`
    /// rounds below `delay`, and a caller that waits for this deadline would spin on it.
    private func longPressDeadline(_ track: Track) -> Double {
        track.startTime + thresholds.longPressDelay
    }

    public mutating func handle(_ event: TouchEvent) -> [Gesture] {
        var output: [Gesture] = []
        switch event.phase {
        case .down:
            tracks[event.id] = Track(startX: event.x, startY: event.y, startTime: event.time,
                                     lastX: event.x, lastY: event.y)
        case .move:
            guard var track = tracks[event.id] else { break }
            // Time has passed: a long press due before this move fires at its start point.
            fireLongPress(&track, id: event.id, now: event.time, into: &output)
            track.lastX = event.x
            track.lastY = event.y
            if distance(track.startX, track.startY, event.x, event.y) > slopPixels {
                track.wandered = true
            }
            tracks[event.id] = track
        case .up:
            guard var track = tracks.removeValue(forKey: event.id) else { break }
            fireLongPress(&track, id: event.id, now: event.time, into: &output)
            track.lastX = event.x
            track.lastY = event.y
            if distance(track.startX, track.startY, event.x, event.y) > slopPixels {
                track.wandered = true
            }
            if track.longPressed { break }
            if let swipe = swipe(track, id: event.id) {
                output.append(swipe)
            } else if !track.wandered {
                output.append(.tap(x: track.startX, y: track.startY, touchID: event.id))
            }
        case .cancel:
            tracks.removeValue(forKey: event.id)
        }
        return output
    }

    /// Fires long presses that are due.
    public mutating func update(now: Double) -> [Gesture] {
        var output: [Gesture] = []
        for id in tracks.keys.sorted() {
            guard var track = tracks[id] else { continue }
            fireLongPress(&track, id: id, now: now, into: &output)
            tracks[id] = track
        }
        return output
    }

    /// Forgets every finger (scene change, device reset).
    public mutating func reset() {
        tracks.removeAll()
    }

    private func fireLongPress(_ track: inout Track, id: Int, now: Double, into output: inout [Gesture]) {
        guard !track.wandered, !track.longPressed, now >= longPressDeadline(track) else { return }
        track.longPressed = true
        output.append(.longPress(x: track.startX, y: track.startY, touchID: id))
    }

    private func swipe(_ track: Track, id: Int) -> Gesture? {
        let dx = track.lastX - track.startX
        let dy = track.lastY - track.startY
        let direction: SwipeDirection
        if abs(dx) >= swipePixels && abs(dx) >= abs(dy) * thresholds.swipeDominance {
            direction = dx > 0 ? .right : .left
        } else if abs(dy) >= swipePixels && abs(dy) >= abs(dx) * thresholds.swipeDominance {
            direction = dy > 0 ? .down : .up
        } else {
            return nil
        }
        return .swipe(direction, fromX: track.startX, fromY: track.startY,
                      toX: track.lastX, toY: track.lastY, touchID: id)
    }

    private func distance(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = x1 - x0, dy = y1 - y0
        return (dx * dx + dy * dy).squareRoot()
    }
}
