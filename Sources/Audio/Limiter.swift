#if canImport(Glibc)
import Glibc
#endif

/// The mixer's output stage: a look-ahead limiter at -1 dBFS, then a soft knee. The output
/// is delayed by `lookaheadFrames` so the gain can come down smoothly *before* a peak
/// arrives instead of clipping it. Runs on the audio thread: `process` never allocates.
/// The owner calls `deallocate()` once, when it is done with it.
struct LookaheadLimiter {
    static let lookaheadFrames = 32  // 0.67 ms
    private static let threshold: Float = 0.89  // -1 dBFS
    private static let window = lookaheadFrames + 1
    /// Frames without one over the threshold after which every held gain is 1 again: a
    /// window until no window minimum is under 1, and a window more until those fill `heldGain`.
    private static let settled = 2 * window - 1

    private let delayLine: UnsafeMutablePointer<Float>      // (L + 1) stereo frames
    private let requiredGain: UnsafeMutablePointer<Float>   // L + 1 gains, one per input frame
    private let heldGain: UnsafeMutablePointer<Float>       // L + 1 window minima, box-averaged
    private var heldSum = Float(LookaheadLimiter.window)
    private var index = 0
    private(set) var gain: Float = 1
    /// Frames since one needed a gain under 1 (capped at `settled`): once a whole window has
    /// passed, its minimum is 1 without scanning it, the usual case (music alone).
    private var framesSinceOver = LookaheadLimiter.settled
    private let releaseCoefficient: Float

    init(sampleRate: Int) {
        let window = LookaheadLimiter.window
        delayLine = .allocate(capacity: window * 2)
        delayLine.initialize(repeating: 0, count: window * 2)
        requiredGain = .allocate(capacity: window)
        requiredGain.initialize(repeating: 1, count: window)
        heldGain = .allocate(capacity: window)
        heldGain.initialize(repeating: 1, count: window)
        releaseCoefficient = 1 - expf(-1 / (0.120 * Float(sampleRate)))  // ~120 ms
    }

    func deallocate() {
        delayLine.deallocate()
        requiredGain.deallocate()
        heldGain.deallocate()
    }

    /// Takes one frame in, gives the frame from `lookaheadFrames` ago out, limited.
    /// For the frame leaving the delay line, the gain is the box average of window minima
    /// of the gain each of the next L frames needs: never above what any of them needs (no
    /// overshoot), and it glides down over L frames instead of jumping (no clipped edge).
    /// Recovery is a slow release.
    @inline(__always)
    mutating func process(_ left: Float, _ right: Float) -> (left: Float, right: Float) {
        let window = LookaheadLimiter.window
        let peak = max(abs(left), abs(right))
        let needed: Float = peak > LookaheadLimiter.threshold ? LookaheadLimiter.threshold / peak : 1
        requiredGain[index] = needed
        framesSinceOver = needed < 1 ? 0 : min(framesSinceOver + 1, LookaheadLimiter.settled)
        var windowMin: Float = 1
        if framesSinceOver < window {
            for k in 0..<window { windowMin = min(windowMin, requiredGain[k]) }
        }
        heldSum += windowMin - heldGain[index]
        heldGain[index] = windowMin
        // Every held gain is 1: the running sum is exactly the window, whatever rounding it
        // gathered while limiting.
        if framesSinceOver == LookaheadLimiter.settled { heldSum = Float(window) }
        let target = min(1, heldSum / Float(window))
        gain = min(target, gain + (target - gain) * releaseCoefficient)
        // In float the release stalls ~1.7e-4 under 1 (its step falls under half an ulp):
        // from 0.9995 (0.004 dB) it is 1, and the limiter can rest.
        if target == 1 && gain > 0.9995 { gain = 1 }
        // The oldest frame in the ring is the one L frames back: out with it, in with this one.
        let oldest = index + 1 == window ? 0 : index + 1  // no division per frame
        let outLeft = delayLine[2 * oldest] * gain
        let outRight = delayLine[2 * oldest + 1] * gain
        delayLine[2 * index] = left
        delayLine[2 * index + 1] = right
        index = oldest
        // The knee only catches float rounding: the limiter already holds -1 dBFS.
        return (LookaheadLimiter.softClip(outLeft), LookaheadLimiter.softClip(outRight))
    }

    /// Every held gain is 1 (`settled` frames under the threshold) and so is the gain: for frames
    /// under the threshold `process` is then a pure delay (the knee starts above it).
    var isResting: Bool {
        framesSinceOver == LookaheadLimiter.settled && gain == 1
    }

    /// What `process` gives while resting, for a run of interleaved stereo frames in place
    /// (each scaled by `scale` first): a delay, with no gain or knee arithmetic. Stops at
    /// the first frame over the threshold; returns the frames done (the rest are `process`'s).
    mutating func delay(_ frames: UnsafeMutablePointer<Float>, count: Int, scale: Float) -> Int {
        let window = LookaheadLimiter.window
        for i in 0..<count {
            let left = frames[2 * i] * scale
            let right = frames[2 * i + 1] * scale
            if max(abs(left), abs(right)) > LookaheadLimiter.threshold { return i }
            requiredGain[index] = 1
            let oldest = index + 1 == window ? 0 : index + 1
            frames[2 * i] = delayLine[2 * oldest]
            frames[2 * i + 1] = delayLine[2 * oldest + 1]
            delayLine[2 * index] = left
            delayLine[2 * index + 1] = right
            index = oldest
        }
        return count
    }

    /// Identity below the knee; above it, a tanh curve with matching slope that tends to 1.
    @inline(__always)
    static func softClip(_ x: Float) -> Float {
        let knee: Float = 0.9
        let magnitude = abs(x)
        if magnitude <= knee { return x }
        let bent = knee + (1 - knee) * tanhf((magnitude - knee) / (1 - knee))
        // 0.99997 keeps the rounded 16-bit value at or below 32767 even for huge inputs.
        return x < 0 ? -min(bent, 0.99997) : min(bent, 0.99997)
    }
}
