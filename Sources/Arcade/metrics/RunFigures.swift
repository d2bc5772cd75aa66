#if canImport(Glibc)
import Glibc
#endif
import Platform

/// What the kiosk measures about itself while it runs, for the metrics: how long each
/// frame took to draw and present (a histogram: Prometheus adds them up across a fleet),
/// the process's CPU time, and the CPU share of the last whole minute without a frame
/// (the idle menu's cost, the figure `scripts/offscreen-check.py` and the system test take).
final class RunFigures {
    /// Upper bounds of the frame-time buckets, in seconds (60 Hz is 0.0167).
    static let frameBuckets: [Double] = [0.002, 0.004, 0.008, 0.0167, 0.033, 0.066, 0.125, 0.25]
    /// A window shorter than this says too little about idle CPU.
    static let shortestIdleWindow = 30.0

    /// Frames per bucket (not cumulative); the last slot is over every bound.
    private(set) var bucketCounts = [Int](repeating: 0, count: frameBuckets.count + 1)
    private(set) var frames = 0
    private(set) var frameSeconds = 0.0
    /// CPU time / wall time over the latest window in which no frame was drawn; nil until one.
    private(set) var idleCPURatio: Double?
    private var window: (start: Double, cpu: Double, frames: Int)?

    /// One frame drawn and presented in `seconds`.
    func recordFrame(seconds: Double) {
        let s = max(0, seconds)
        frames += 1
        frameSeconds += s
        bucketCounts[Self.frameBuckets.firstIndex { s <= $0 } ?? Self.frameBuckets.count] += 1
    }

    /// Cumulative counts per bound, as a histogram's `_bucket` samples want them (+Inf last).
    var cumulativeBuckets: [(bound: Double, count: Int)] {
        var running = 0
        var out: [(Double, Int)] = []
        for (i, n) in bucketCounts.enumerated() {
            running += n
            out.append((i < Self.frameBuckets.count ? Self.frameBuckets[i] : .infinity, running))
        }
        return out
    }

    /// Ends the window that began at the previous call: if no frame was drawn in it and it
    /// was long enough, its CPU share is the new idle figure.
    func closeWindow(now: Double, cpuSeconds: Double) {
        if let w = window, frames == w.frames, now - w.start >= Self.shortestIdleWindow {
            idleCPURatio = max(0, cpuSeconds - w.cpu) / (now - w.start)
        }
        window = (now, cpuSeconds, frames)
    }

    /// This process's CPU time (every thread: the run loop, sound, warm-up), in seconds.
    static func processCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
