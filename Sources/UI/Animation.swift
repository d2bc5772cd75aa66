#if canImport(Glibc)
import Glibc
#endif

/// Easing curves: t in 0...1 -> progress.
public enum Easing: Sendable {
    case linear, easeIn, easeOut, easeInOut
    /// Overshoots a little and settles: for pops.
    case backOut

    public func apply(_ t: Double) -> Double {
        let t = max(0, min(1, t))
        switch self {
        case .linear: return t
        case .easeIn: return t * t * t
        case .easeOut: let u = 1 - t; return 1 - u * u * u
        case .easeInOut: return t < 0.5 ? 4 * t * t * t : 1 - pow(-2 * t + 2, 3) / 2
        case .backOut:
            let c1 = 1.70158, c3 = c1 + 1
            return 1 + c3 * pow(t - 1, 3) + c1 * pow(t - 1, 2)
        }
    }
}

/// One animation from 0 to 1 over `duration` seconds, calling `step` with the eased
/// value each frame and `completion` once at the end. Chains with `then`.
public final class Tween {
    public let duration: Double
    public let delay: Double
    public let easing: Easing
    let step: (Double) -> Void
    var completion: (() -> Void)?
    var next: [Tween] = []
    var start: Double?
    public private(set) var isFinished = false
    public private(set) var isCancelled = false
    weak var animator: Animator?

    init(duration: Double, delay: Double, easing: Easing, step: @escaping (Double) -> Void) {
        self.duration = max(0, duration)
        self.delay = max(0, delay)
        self.easing = easing
        self.step = step
    }

    /// Runs `body` when this tween ends (not when cancelled).
    @discardableResult
    public func onComplete(_ body: @escaping () -> Void) -> Tween {
        let previous = completion
        completion = { previous?(); body() }
        return self
    }

    /// Starts another tween when this one ends; returns it so chains read in order.
    @discardableResult
    public func then(duration: Double, easing: Easing = .easeOut, _ step: @escaping (Double) -> Void) -> Tween {
        let t = Tween(duration: duration, delay: 0, easing: easing, step: step)
        t.animator = animator
        next.append(t)
        return t
    }

    /// Stops without completing; chained tweens never start.
    public func cancel() {
        isCancelled = true
        next.forEach { $0.cancel() }
    }

    /// Jumps to the end: final value, completion, and the whole chain at once.
    public func finish() {
        guard !isFinished, !isCancelled else { return }
        step(easing.apply(1))
        isFinished = true
        completion?()
        for t in next where !t.isCancelled { t.finish() }
        next.removeAll()
    }

    /// Advances; returns false once it is done (finished or cancelled).
    func advance(now: Double) -> Bool {
        if isCancelled { return false }
        if start == nil { start = now }
        let elapsed = now - start! - delay
        if elapsed < 0 { return true }
        let t = duration == 0 ? 1 : elapsed / duration
        if t >= 1 {
            step(easing.apply(1))
            isFinished = true
            completion?()
            for n in next where !n.isCancelled { animator?.add(n, at: now) }
            next.removeAll()
            return false
        }
        step(easing.apply(t))
        return true
    }
}

/// Runs a scene's tweens; the scene advances it once per frame with the frame's time.
public final class Animator {
    private var tweens: [Tween] = []
    public private(set) var now: Double = 0

    public init() {}

    public var isAnimating: Bool { !tweens.isEmpty }
    public var count: Int { tweens.count }

    /// Animates from 0 to 1; `step` maps that to a property.
    @discardableResult
    public func tween(duration: Double, delay: Double = 0, easing: Easing = .easeOut,
                      _ step: @escaping (Double) -> Void) -> Tween {
        let t = Tween(duration: duration, delay: delay, easing: easing, step: step)
        add(t, at: now)
        return t
    }

    func add(_ tween: Tween, at time: Double) {
        tween.animator = self
        tween.start = time
        tweens.append(tween)
    }

    public func update(now: Double) {
        self.now = now
        // Tweens added by completions during this pass start next frame from `now`.
        let running = tweens
        tweens.removeAll(keepingCapacity: true)
        var kept: [Tween] = []
        for t in running where t.advance(now: now) { kept.append(t) }
        tweens = kept + tweens
    }

    /// Completes every running tween (and their chains) at once.
    public func finishAll() {
        while !tweens.isEmpty {
            let running = tweens
            tweens.removeAll()
            running.forEach { $0.finish() }
        }
    }

    public func cancelAll() {
        tweens.forEach { $0.cancel() }
        tweens.removeAll()
    }
}

/// Linear interpolation for tween steps.
public func lerp(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }
