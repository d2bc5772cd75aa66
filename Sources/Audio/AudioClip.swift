/// The mixer's fixed output format: every clip is stored at this rate, so voices never resample.
public enum AudioFormat {
    public static let sampleRate = 48_000
    public static let channels = 2
}

/// Immutable sample data at 48 kHz, 16-bit, mono or interleaved stereo.
/// Made once (synthesized or loaded), then shared read-only between the main thread and
/// the audio thread, which sees it only through a `ClipRef` (no reference counting there).
public final class AudioClip: @unchecked Sendable {
    public let name: String
    public let channels: Int
    public let frames: Int
    /// Written only in init; read-only afterwards, which is what makes sharing safe.
    let samples: UnsafeMutablePointer<Int16>

    /// From float samples in -1...1 (interleaved when stereo); values beyond are clamped.
    public init(name: String, channels: Int, interleaved: [Float]) {
        precondition(channels == 1 || channels == 2, "a clip is mono or stereo")
        self.name = name
        self.channels = channels
        frames = interleaved.count / channels
        samples = .allocate(capacity: max(1, frames * channels))
        for i in 0..<(frames * channels) {
            let v = max(-1, min(1, interleaved[i]))
            samples[i] = Int16((v * 32767).rounded())
        }
    }

    deinit { samples.deallocate() }

    public var duration: Double { Double(frames) / Double(AudioFormat.sampleRate) }

    /// Sample of one channel as a float (a mono clip answers for either channel).
    public func sample(frame: Int, channel: Int) -> Float {
        Float(samples[frame * channels + min(channel, channels - 1)]) / 32767
    }

    /// Float copy, interleaved as stored.
    public func floatSamples() -> [Float] {
        (0..<(frames * channels)).map { Float(samples[$0]) / 32767 }
    }

    /// Peak and RMS over the whole clip, all channels, in 0...1.
    public func levels() -> (peak: Float, rms: Float) {
        var peak: Float = 0
        var sum: Double = 0
        for i in 0..<(frames * channels) {
            let v = Float(samples[i]) / 32767
            peak = max(peak, abs(v))
            sum += Double(v * v)
        }
        let n = max(1, frames * channels)
        return (peak, Float((sum / Double(n)).squareRoot()))
    }

    var ref: ClipRef { ClipRef(samples: UnsafePointer(samples), frames: frames, channels: channels) }
}

/// What the audio thread holds of a clip: a raw view, kept alive by the main side.
struct ClipRef: BitwiseCopyable {
    let samples: UnsafePointer<Int16>
    let frames: Int
    let channels: Int
}
