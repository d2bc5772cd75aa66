#if canImport(Glibc)
import Glibc
#endif
import Platform

/// A summary of repeated measurements.
public struct BenchFigures: Sendable, CustomStringConvertible {
    public let count: Int
    public let median: Double
    public let max: Double
    /// 99th percentile: the max of a timing run is often one preemption, not the code.
    public let p99: Double
    public let mean: Double

    public init(_ values: [Double]) {
        let sorted = values.sorted()
        count = sorted.count
        median = sorted.isEmpty ? 0 : (sorted.count % 2 == 1 ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2)
        max = sorted.last ?? 0
        p99 = sorted.isEmpty ? 0 : sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        mean = sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count)
    }

    public var description: String { "median \(median), p99 \(p99), max \(max), mean \(mean) (n=\(count))" }
}

/// A device model for measuring latency where there is no sound card: it plays out
/// frames at 48 kHz by the monotonic clock, blocks writes while its buffer is full and
/// underruns (EPIPE) when starved, like a hardware PCM.
public final class ClockedPCM: PCMOutput {
    public let periodFrames: Int
    public let bufferFrames: Int
    private let wakeLevel: Int
    private var startTime: Double? = nil
    private var written = 0

    /// A device that takes the config's period and buffer as asked.
    public init(config: AudioConfig) {
        periodFrames = config.periodFrames
        bufferFrames = config.periodFrames * config.periods
        wakeLevel = bufferFrames - (config.queuedPeriods(bufferFrames: bufferFrames, periodFrames: periodFrames) - 1) * periodFrames
    }

    private var played: Int {
        guard let startTime else { return 0 }
        return Int((monotonicSeconds() - startTime) * Double(AudioFormat.sampleRate))
    }

    public func available() -> Int {
        let queued = written - played
        if startTime != nil && queued < 0 { return -Int(EPIPE) }
        return bufferFrames - max(0, queued)
    }

    /// Sleeps until the buffer has drained to the wake level, as a period interrupt would
    /// wake a poll(2) on a real PCM: one wake-up per period, not a polling loop.
    public func wait(timeoutMilliseconds: Int32) -> Int32 {
        let deadline = monotonicSeconds() + Double(timeoutMilliseconds) / 1000
        while true {
            let avail = available()
            if avail < 0 { return Int32(avail) }
            if avail >= wakeLevel { return 1 }
            let now = monotonicSeconds()
            if now >= deadline { return 0 }
            // Rounded up to the next frame, so the wake-up is never a hair early.
            let wake = min(deadline, now + Double(wakeLevel - avail + 1) / Double(AudioFormat.sampleRate))
            var request = timespec(tv_sec: Int(wake), tv_nsec: Int((wake - Double(Int(wake))) * 1e9))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &request, nil) == EINTR {}
        }
    }

    public func write(_ samples: UnsafePointer<Int16>, frames: Int) -> Int {
        var avail = available()
        if avail < 0 { return avail }
        while avail < frames {
            if wait(timeoutMilliseconds: 1000) < 0 { return -Int(EPIPE) }
            avail = available()
            if avail < 0 { return avail }
        }
        if startTime == nil { startTime = monotonicSeconds() }
        written += frames
        return frames
    }

    public func recover(_ error: Int32) -> Int32 {
        // Restart the stream: whatever was queued has played; begin again at the next write.
        startTime = nil
        written = 0
        return 0
    }
}

/// Figures boardwalk-bench reports for sound.
public enum AudioBenchmark {
    /// Time to mix one period with every voice busy (looping music and effects), as a
    /// percentage of the period's real-time length.
    public static func mixingCost(library: SoundLibrary, voices: Int = 16, periodFrames: Int = 256,
                                  periods: Int = 2000) -> BenchFigures
    {
        let mixer = Mixer(voices: voices)
        let clips: [AudioClip] = Music.allCases.map { library.clip($0) } + Sound.allCases.map { library.clip($0) }
        for v in 0..<voices {
            mixer.play(clips[v % clips.count], gain: 0.9, pan: Float(v % 5) / 2 - 1, loop: true)
        }
        let buffer = UnsafeMutablePointer<Int16>.allocate(capacity: periodFrames * 2)
        defer { buffer.deallocate() }
        mixer.render(into: buffer, frames: periodFrames)  // applies the commands
        let periodSeconds = Double(periodFrames) / Double(AudioFormat.sampleRate)
        var costs: [Double] = []
        costs.reserveCapacity(periods)
        for _ in 0..<periods {
            let start = monotonicSeconds()
            mixer.render(into: buffer, frames: periodFrames)
            costs.append((monotonicSeconds() - start) / periodSeconds * 100)
        }
        return BenchFigures(costs)
    }

    /// Tap-to-first-sample latency in seconds: from the play command to the sound's first
    /// sample entering the device buffer, plus the audio already queued ahead of it there.
    /// Uses config.device when it opens and `simulate` is false; otherwise a ClockedPCM
    /// with the config's period and buffer (reported as `simulated`).
    public static func tapLatency(library: SoundLibrary, config: AudioConfig, taps: Int = 60, simulate: Bool = false)
        throws(SystemError) -> (figures: BenchFigures, simulated: Bool)
    {
        // The real device when it opens (and none was refused), else a clock-paced model.
        var simulated = simulate
        if !simulate {
            do { _ = try ALSAPCM(config: config) } catch { simulated = true }
        }
        let clocked: PCMOpener = { config in
            ClockedPCM(config: config)
        }
        let opener = simulated ? clocked : ALSAPCM.opener
        var sinkConfig = config
        if simulated { sinkConfig.device = simulate ? "simulated device" : "simulated device (\(config.device) did not open)" }
        let mixer = Mixer(voices: config.voices)
        let sink = ALSASink(mixer: mixer, config: sinkConfig, opener: opener)
        try sink.start()
        defer { sink.stop() }
        let board = MixerSoundBoard(mixer: mixer, library: library)
        board.playMusic(.menu)
        var seed: UInt32 = 12345
        pause(0.1)
        while sink.latencies.pop() != nil {}  // the music's start is not a tap
        for _ in 0..<taps {
            // Taps at uneven times, so they land anywhere within a period.
            seed = seed &* 1_103_515_245 &+ 12345
            pause(0.03 + Double((seed >> 16) % 1000) / 1000 * 0.05)
            board.play(.click, gain: 0.8, pan: 0)
        }
        pause(0.1)
        var values: [Double] = []
        while let value = sink.latencies.pop() { values.append(value) }
        return (BenchFigures(values), simulated)
    }

    /// What the idle kiosk's sound costs: the sink thread mixing one looping tune (the
    /// menu's) onto a clock-paced device with the config's period and buffer, for
    /// `seconds` of real time while the calling thread sleeps (as the run loop does when
    /// nothing moves). The process's CPU time over that span, in % of one core.
    public static func idleCost(library: SoundLibrary, config: AudioConfig, seconds: Double = 5)
        throws(SystemError) -> Double
    {
        let mixer = Mixer(voices: config.voices)
        let sink = ALSASink(mixer: mixer, config: config, opener: { config in
            ClockedPCM(config: config)
        })
        try sink.start()
        defer { sink.stop() }
        MixerSoundBoard(mixer: mixer, library: library).playMusic(.menu)
        func processCPU() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        pause(0.5)  // past the fade-in and the device's start
        let wall0 = monotonicSeconds(), cpu0 = processCPU()
        pause(seconds)
        return (processCPU() - cpu0) / (monotonicSeconds() - wall0) * 100
    }

    private static func pause(_ seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        nanosleep(&request, nil)
    }
}
