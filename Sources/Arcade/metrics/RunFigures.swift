#if canImport(Glibc)
import Glibc
#endif
import Platform

/// What the kiosk measures about itself while it runs, for the metrics: how long each
/// frame took to draw and present and how long an input took to show on screen
/// (histograms: Prometheus adds them up across a fleet), the process's CPU time, and the
/// CPU share of the last whole minute without a frame (the idle menu's cost, the figure
/// `scripts/offscreen-check.py` and the system test take).
final class RunFigures {
    /// Upper bounds of the frame-time buckets, in seconds (60 Hz is 0.0167).
    static let frameBuckets: [Double] = [0.002, 0.004, 0.008, 0.0167, 0.033, 0.066, 0.125, 0.25]
    /// A window shorter than this says too little about idle CPU.
    static let shortestIdleWindow = 30.0

    /// Upper bounds of the input-to-photon buckets, in seconds: fine around the goal, one
    /// refresh at 60 Hz plus 4 ms (0.0207).
    static let photonBuckets: [Double] = [0.004, 0.008, 0.0125, 0.0167, 0.0207, 0.025, 0.033, 0.05, 0.1, 0.25, 1]

    /// Frames per bucket (not cumulative); the last slot is over every bound.
    private(set) var frames = Histogram(bounds: frameBuckets)
    /// From an input's kernel timestamp to the vblank of the frame that shows its result.
    private(set) var inputToPhoton = Histogram(bounds: photonBuckets)
    /// The earliest input the screen took that no drawn frame has answered yet.
    private var unanswered: Double?
    /// The input a presented frame answers, until that frame is on screen.
    private var onItsWay: Double?
    /// Every input-to-photon time, kept only when asked (the bench's percentiles).
    var photonSamples: [Double]?
    /// CPU time / wall time over the latest window in which no frame was drawn; nil until one.
    private(set) var idleCPURatio: Double?
    private var window: (start: Double, cpu: Double, frames: Int)?

    /// One frame drawn and presented in `seconds`.
    func recordFrame(seconds: Double) { frames.record(seconds) }

    /// An input (a touch or a key, at its kernel timestamp) reached the scene and changed
    /// what the screen will draw.
    func inputChangedScreen(at time: Double) {
        if unanswered == nil { unanswered = time }
    }

    /// An input changed the screen and no frame has been drawn for it yet.
    var inputAwaitsFrame: Bool { unanswered != nil }

    /// A frame was drawn: it answers the inputs before it. `presented`: it went out (a
    /// frame with nothing new is not presented, and answers nothing).
    func frameDrawn(presented: Bool) {
        guard let time = unanswered else { return }
        unanswered = nil
        if presented, onItsWay == nil { onItsWay = time }
    }

    /// The presented frame reached the screen at `time` (its vblank).
    func frameShown(at time: Double) {
        guard let input = onItsWay else { return }
        onItsWay = nil
        // A clock that is not the kiosk's (a replayed recording) says nothing.
        let seconds = time - input
        guard seconds >= 0, seconds < 10 else { return }
        inputToPhoton.record(seconds)
        photonSamples?.append(seconds)
    }

    /// Ends the window that began at the previous call: if no frame was drawn in it and it
    /// was long enough, its CPU share is the new idle figure.
    func closeWindow(now: Double, cpuSeconds: Double) {
        if let w = window, frames.count == w.frames, now - w.start >= Self.shortestIdleWindow {
            idleCPURatio = max(0, cpuSeconds - w.cpu) / (now - w.start)
        }
        window = (now, cpuSeconds, frames.count)
    }

    /// This process's CPU time (every thread: the run loop, sound, warm-up), in seconds.
    static func processCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

/// Samples counted under fixed upper bounds, as a Prometheus histogram keeps them, and
/// the largest one.
public struct Histogram: Sendable {
    public let bounds: [Double]
    /// Samples per bucket (not cumulative); the last slot is over every bound.
    public private(set) var counts: [Int]
    public private(set) var count = 0
    public private(set) var sum = 0.0
    public private(set) var max = 0.0

    public init(bounds: [Double]) {
        self.bounds = bounds
        counts = [Int](repeating: 0, count: bounds.count + 1)
    }

    public mutating func record(_ value: Double) {
        let v = Swift.max(0, value)
        count += 1
        sum += v
        max = Swift.max(max, v)
        counts[bounds.firstIndex { v <= $0 } ?? bounds.count] += 1
    }

    /// Cumulative counts per bound, as a histogram's `_bucket` samples want them (+Inf last).
    public var cumulative: [(bound: Double, count: Int)] {
        var running = 0
        var out: [(Double, Int)] = []
        for (i, n) in counts.enumerated() {
            running += n
            out.append((i < bounds.count ? bounds[i] : .infinity, running))
        }
        return out
    }

    /// The bound under which `fraction` of the samples fall (the bucket's upper bound, as
    /// Prometheus' histogram_quantile reads it at its coarsest); nil with no samples, the
    /// largest sample past the last bound.
    public func quantileBound(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let wanted = Int((fraction * Double(count)).rounded(.up))
        for (bound, running) in cumulative where running >= wanted { return bound.isFinite ? bound : max }
        return max
    }
}
