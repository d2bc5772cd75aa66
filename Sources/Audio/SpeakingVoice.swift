#if canImport(Glibc)
import Glibc
#endif

/// A voice for cartoon monsters: a glottal pulse train (with a little jitter and a growl)
/// through formant resonators, and breath noise for the "h". Enough for a zombie's laugh;
/// every part is ours and deterministic.
enum SpeakingVoice {
    /// One syllable: an "h" of breath, then the voiced vowel at a pitch that glides from
    /// `pitch` to `endPitch` (Hz) with `formants` (Hz; "a" as in "ha": 750, 1150, 2500).
    struct Syllable {
        var start: Double
        var length: Double
        var pitch: Double
        var endPitch: Double
        var formants: [Double] = [750, 1150, 2500]
        /// Seconds of breath before the voice starts.
        var breath = 0.035
        /// 0...1: how much the pitch wobbles at ~30 Hz (a throaty rattle).
        var growl = 0.35
        var gain: Float = 1
    }

    /// A two-pole resonator (a band-pass) at `frequency` with `bandwidth` Hz.
    struct Resonator {
        var b0 = 0.0, a1 = 0.0, a2 = 0.0
        var y1 = 0.0, y2 = 0.0

        init(frequency: Double, bandwidth: Double, rate: Double) {
            let r = exp(-Double.pi * bandwidth / rate)
            a1 = 2 * r * cos(2 * Double.pi * frequency / rate)
            a2 = -r * r
            b0 = 1 - r
        }

        mutating func process(_ x: Double) -> Double {
            let y = b0 * x + a1 * y1 + a2 * y2
            y2 = y1
            y1 = y
            return y
        }
    }

    static func render(_ track: Track, _ syllable: Syllable, seed: UInt32) {
        let rate = Double(AudioFormat.sampleRate)
        let startFrame = Int(syllable.start * rate)
        let count = Int(syllable.length * rate)
        var noise = Noise(seed: seed)
        var resonators = syllable.formants.enumerated().map { index, f in
            Resonator(frequency: f, bandwidth: 90 + Double(index) * 60, rate: rate)
        }
        let breathResonator = syllable.formants.first.map { Resonator(frequency: $0 * 1.6, bandwidth: 900, rate: rate) }
        var breathFilter = breathResonator ?? Resonator(frequency: 1200, bandwidth: 900, rate: rate)
        var phase = 0.0
        var jitter = 0.0
        for i in 0..<count {
            let t = Double(i) / rate
            let progress = t / syllable.length
            // Breath ("h") first, the voice fades in under it.
            let voiced = min(1, max(0, (t - syllable.breath * 0.6) / 0.02))
            let breathLevel = max(0, 1 - t / max(0.001, syllable.breath)) * 0.8 + 0.08
            // Pitch: an exponential glide, a growl, a little jitter per period.
            var pitch = syllable.pitch * pow(syllable.endPitch / syllable.pitch, progress)
            pitch *= 1 + syllable.growl * 0.06 * sin(2 * Double.pi * 31 * t)
            pitch *= 1 + jitter
            phase += pitch / rate
            if phase >= 1 {
                phase -= 1
                jitter = Double(noise.next()) * 0.02
            }
            // A glottal pulse: a short rounded flash at the start of each period.
            let open = 0.35
            let pulse = phase < open ? sin(Double.pi * phase / open) * sin(Double.pi * phase / open) : 0
            var voice = 0.0
            for index in resonators.indices {
                voice += resonators[index].process(pulse - 0.3) * (index == 0 ? 1.0 : 0.6 / Double(index))
            }
            let air = breathFilter.process(Double(noise.next())) * breathLevel
            // Envelope: quick rise, hold, a fall over the last third.
            let attack = min(1, t / 0.012)
            let release = min(1, (syllable.length - t) / (syllable.length * 0.35))
            let sample = (voice * voiced * 6 + air * 3) * attack * max(0, release)
            let value = Float(sample) * syllable.gain
            track.add(frame: startFrame + i, left: value, right: value)
        }
    }
}
