#if canImport(Glibc)
import Glibc
#endif

/// The synthesizer's building blocks: a float track to render into, oscillators,
/// envelopes, filters and a note renderer. Everything is deterministic (seeded noise), so
/// the same build always makes the same sounds.

/// A float buffer of mono or interleaved stereo frames at 48 kHz. A looping track wraps
/// writes past its end to its start, so a note's release tail continues across the loop
/// seam exactly as it would on the next pass: the loop has no click and no gap.
final class Track {
    let channels: Int
    let frames: Int
    let wraps: Bool
    let data: UnsafeMutablePointer<Float>

    init(seconds: Double, channels: Int, wraps: Bool = false) {
        self.channels = channels
        frames = max(1, Int((seconds * Double(AudioFormat.sampleRate)).rounded()))
        self.wraps = wraps
        data = .allocate(capacity: frames * channels)
        data.initialize(repeating: 0, count: frames * channels)
    }

    deinit { data.deallocate() }

    @inline(__always)
    func add(frame: Int, left: Float, right: Float) {
        var f = frame
        if f >= frames {
            guard wraps else { return }
            f %= frames
        }
        if channels == 1 {
            data[f] += (left + right) * 0.5
        } else {
            data[2 * f] += left
            data[2 * f + 1] += right
        }
    }

    /// Peak, and the loudest RMS over 50 ms windows: how loud a short sound feels.
    func levels() -> (peak: Float, shortTermRMS: Float, rms: Float) {
        var peak: Float = 0
        var total: Double = 0
        var loudest: Double = 0
        let window = AudioFormat.sampleRate / 20
        var windowSum: Double = 0
        var windowCount = 0
        for f in 0..<frames {
            var energy: Double = 0
            for c in 0..<channels {
                let v = data[f * channels + c]
                peak = max(peak, abs(v))
                energy += Double(v * v)
            }
            energy /= Double(channels)
            total += energy
            windowSum += energy
            windowCount += 1
            if windowCount == window || f == frames - 1 {
                loudest = max(loudest, windowSum / Double(window))
                windowSum = 0
                windowCount = 0
            }
        }
        return (peak, Float(loudest.squareRoot()), Float((total / Double(frames)).squareRoot()))
    }

    func scale(_ gain: Float) {
        for i in 0..<(frames * channels) { data[i] *= gain }
    }

    /// Scales to a short-term loudness, turned down further if the peak would pass peakLimit.
    func normalize(shortTermRMS target: Float, peakLimit: Float) {
        let (peak, loudness, _) = levels()
        guard peak > 0, loudness > 0 else { return }
        scale(min(target / loudness, peakLimit / peak))
    }

    /// Short linear fades at both ends: an exact zero at the first and last sample.
    func taper(seconds: Double = 0.003) {
        let n = min(frames / 2, Int(seconds * Double(AudioFormat.sampleRate)))
        guard n > 0 else { return }
        for i in 0..<n {
            let g = Float(i) / Float(n)
            for c in 0..<channels {
                data[i * channels + c] *= g
                data[(frames - 1 - i) * channels + c] *= g
            }
        }
    }

    func clip(name: String) -> AudioClip {
        AudioClip(name: name, channels: channels,
                  interleaved: Array(UnsafeBufferPointer(start: data, count: frames * channels)))
    }
}

/// Deterministic white noise (xorshift), so renders are identical run to run.
struct Noise {
    var state: UInt32
    init(seed: UInt32) { state = seed == 0 ? 0x9E37_79B9 : seed }
    @inline(__always)
    mutating func next() -> Float {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return Float(Int32(bitPattern: state)) / Float(Int32.max)
    }
}

enum Wave {
    case sine, triangle, square, saw
    /// Two-operator FM: a sine carrier phase-modulated by a sine at ratio x the pitch, with
    /// an index that decays over `decay` seconds (bells, electric piano, marimba).
    case fm(ratio: Double, index: Double, decay: Double)
    case noise
}

/// A note's timbre: waveform, ADSR envelope, low-pass filter, vibrato, pitch glide.
struct Instrument {
    var wave: Wave = .sine
    var attack = 0.005
    var decay = 0.1
    var sustain: Float = 0.7
    var release = 0.1
    /// Exponential decay through the whole note instead of a held sustain (plucks, bells).
    var ring: Double? = nil
    /// One-pole low-pass, twice (12 dB/octave); nil leaves the tone open.
    var cutoff: Double? = nil
    /// Cutoff multiplier at the attack, gliding to 1 over filterDecay: a "wah" or a pluck.
    var filterSweep = 1.0
    var filterDecay = 0.1
    var vibratoRate = 5.5
    var vibratoDepth = 0.0  // semitones
    var vibratoDelay = 0.2
    /// Pitch starts this many semitones away and glides home over glideTime.
    var glide = 0.0
    var glideTime = 0.05
    /// A second oscillator detuned by this many cents, for width and warmth.
    var detune = 0.0
    var gain: Float = 1
}

enum Synth {
    static let rate = Double(AudioFormat.sampleRate)

    static func frequency(midi: Double) -> Double { 440 * pow(2, (midi - 69) / 12) }

    /// MIDI number of a name like "C4", "F#3", "Bb5" (C4 = 60).
    static func midi(_ name: Substring) -> Int? {
        guard let letter = name.first, let base = ["C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11][String(letter)]
        else { return nil }
        var rest = name.dropFirst()
        var accidental = 0
        if rest.first == "#" { accidental = 1; rest = rest.dropFirst() } else if rest.first == "b" { accidental = -1; rest = rest.dropFirst() }
        guard let octave = Int(rest) else { return nil }
        return (octave + 1) * 12 + base + accidental
    }

    /// sin(2 pi x) for x in cycles: range-reduced to a quarter wave, then a 9th-order
    /// polynomial (error under 4e-6, -108 dB): a fraction of libm's cost per sample.
    @inline(__always)
    static func sine(cycles x: Double) -> Double {
        var p = x - x.rounded(.down)  // 0..<1
        if p >= 0.5 { p -= 1 }        // -0.5..<0.5
        if p > 0.25 { p = 0.5 - p } else if p < -0.25 { p = -0.5 - p }
        let t = 2 * Double.pi * p
        let t2 = t * t
        return t * (1 + t2 * (-1.0 / 6 + t2 * (1.0 / 120 + t2 * (-1.0 / 5040 + t2 * (1.0 / 362_880)))))
    }

    @inline(__always)
    static func polyBLEP(_ t: Double, _ dt: Double) -> Double {
        if t < dt { let x = t / dt; return x + x - x * x - 1 }
        if t > 1 - dt { let x = (t - 1) / dt; return x * x + x + x + 1 }
        return 0
    }

    /// One oscillator sample at phase 0..<1 with phase increment dt (band-limited edges).
    @inline(__always)
    static func oscillator(_ wave: Wave, phase: Double, dt: Double, index: Double, noise: inout Noise) -> Double {
        switch wave {
        case .sine: return sine(cycles: phase)
        case .triangle: return 1 - 4 * abs(phase - 0.5)
        case .saw: return 2 * phase - 1 - polyBLEP(phase, dt)
        case .square:
            var v = phase < 0.5 ? 1.0 : -1.0
            v += polyBLEP(phase, dt)
            v -= polyBLEP(phase < 0.5 ? phase + 0.5 : phase - 0.5, dt)
            return v
        case let .fm(ratio, _, _):
            return sine(cycles: phase + index / (2 * .pi) * sine(cycles: phase * ratio))
        case .noise: return Double(noise.next())
        }
    }

    /// Adds one note to a track: start and held length in seconds, the release follows.
    /// Exponential curves run as per-sample multipliers rather than exp() calls: the whole
    /// set of sounds is rendered at every start, on boards much slower than a desktop.
    static func note(_ track: Track, start: Double, length: Double, midi: Double, velocity: Float,
                     pan: Float = 0, instrument ins: Instrument, seed: UInt32 = 1)
    {
        let total = length + ins.release
        let count = Int(total * rate)
        let first = Int((start * rate).rounded())
        let angle = Double(pan + 1) * .pi / 4
        let leftGain = Float(cos(angle) * 2.0.squareRoot()) * velocity * ins.gain
        let rightGain = Float(sin(angle) * 2.0.squareRoot()) * velocity * ins.gain
        let baseFrequency = frequency(midi: midi)
        let wave = ins.wave
        let attackFrames = max(1, Int(ins.attack * rate))
        let decayFrames = max(1, Int(ins.decay * rate))
        let lengthFrames = Int(length * rate)
        let releaseFrames = max(1, count - lengthFrames)
        let ringFactor = ins.ring.map { exp(-1 / ($0 * rate)) } ?? 1
        let hasRing = ins.ring != nil
        var ringLevel = 1.0
        let glideFactor = exp(-3 / (max(ins.glideTime, 1e-4) * rate))
        var glide = ins.glide
        let sweepFactor = exp(-1 / (max(ins.filterDecay, 1e-4) * rate))
        var sweep = ins.filterSweep - 1
        var fmIndex = 0.0, fmFactor = 1.0
        if case let .fm(_, index, decay) = wave { fmIndex = index; fmFactor = exp(-1 / (decay * rate)) }
        let vibratoStart = Int(ins.vibratoDelay * rate)
        let vibratoRamp = 0.2 * rate
        let vibratoCycles = ins.vibratoRate / rate
        let detuneRatio = pow(2, ins.detune / 1200)
        let cutoff = ins.cutoff ?? 0
        var phase = 0.0, phase2 = 0.37
        var low1 = 0.0, low2 = 0.0
        var noise = Noise(seed: seed &* 2_654_435_761 &+ UInt32(truncatingIfNeeded: first))
        var releaseFrom: Float = 0
        let ln2over12 = log(2.0) / 12
        for i in 0..<count {
            // Envelope.
            var env: Float
            if i < attackFrames {
                env = Float(i) / Float(attackFrames)
            } else if hasRing {
                ringLevel *= ringFactor
                env = Float(ringLevel)
            } else if i < attackFrames + decayFrames {
                env = 1 - (1 - ins.sustain) * Float(i - attackFrames) / Float(decayFrames)
            } else {
                env = ins.sustain
            }
            if i < lengthFrames {
                releaseFrom = env
            } else {
                // Linear to exactly zero at the last sample: no step at the end.
                env = releaseFrom * Float(count - i) / Float(releaseFrames)
            }
            // Pitch: glide and delayed vibrato.
            var semis = 0.0
            if glide != 0 {
                semis += glide
                glide *= glideFactor
            }
            if ins.vibratoDepth > 0 && i > vibratoStart {
                let depth = ins.vibratoDepth * min(1, Double(i - vibratoStart) / vibratoRamp)
                semis += depth * sine(cycles: vibratoCycles * Double(i))
            }
            let dt = (semis == 0 ? baseFrequency : baseFrequency * exp(semis * ln2over12)) / rate
            var v = oscillator(wave, phase: phase, dt: dt, index: fmIndex, noise: &noise)
            if ins.detune != 0 {
                v = 0.5 * (v + oscillator(wave, phase: phase2, dt: dt * detuneRatio, index: fmIndex, noise: &noise))
                phase2 += dt * detuneRatio
                if phase2 >= 1 { phase2 -= 1 }
            }
            fmIndex *= fmFactor
            phase += dt
            if phase >= 1 { phase -= 1 }
            if cutoff > 0 {
                let fc = min(cutoff * (1 + sweep), rate * 0.45)
                sweep *= sweepFactor
                // One-pole coefficient 1 - e^(-w), by its rational approximation w / (1 + w).
                let w = 2 * .pi * fc / rate
                let a = w / (1 + w)
                low1 += (v - low1) * a
                low2 += (low1 - low2) * a
                v = low2
            }
            let s = Float(v) * env
            track.add(frame: first + i, left: s * leftGain, right: s * rightGain)
        }
    }

    /// A drum hit into a track. kick: falling sine thump; snare: noise + body; hat: bright
    /// noise tick; shaker: soft noise; wood: a hollow click (block).
    enum Drum { case kick, snare, hat, shaker, wood, tom }

    static func drum(_ track: Track, start: Double, _ kind: Drum, velocity: Float, pan: Float = 0, seed: UInt32 = 7) {
        let first = Int((start * rate).rounded())
        var noise = Noise(seed: seed &+ UInt32(truncatingIfNeeded: first) &* 747_796_405)
        let angle = Double(pan + 1) * .pi / 4
        let lg = Float(cos(angle) * 2.0.squareRoot()) * velocity
        let rg = Float(sin(angle) * 2.0.squareRoot()) * velocity
        let length: Double
        switch kind {
        case .kick: length = 0.35
        case .snare: length = 0.22
        case .hat: length = 0.06
        case .shaker: length = 0.09
        case .wood: length = 0.08
        case .tom: length = 0.3
        }
        let count = Int(length * rate)
        var phase = 0.0
        var low = 0.0, previous = 0.0, band = 0.0
        for i in 0..<count {
            let t = Double(i) / rate
            let attack = min(1, t / 0.0015)
            let tail = 1 - t / length  // reaches zero at the end: no step
            var v = 0.0
            switch kind {
            case .kick:
                let f = 48 + 110 * exp(-t / 0.035)
                phase += f / rate
                v = sin(2 * .pi * phase) * exp(-t / 0.16)
            case .tom:
                let f = 95 + 60 * exp(-t / 0.05)
                phase += f / rate
                v = sin(2 * .pi * phase) * exp(-t / 0.12) * 0.8
            case .snare:
                let n = Double(noise.next())
                low += (n - low) * 0.35
                phase += 185 / rate
                v = low * exp(-t / 0.06) * 0.7 + sin(2 * .pi * phase) * exp(-t / 0.04) * 0.5
            case .hat:
                let n = Double(noise.next())
                let high = n - previous  // crude high-pass: only the top end stays
                previous = n
                v = high * exp(-t / 0.015) * 0.45
            case .shaker:
                let n = Double(noise.next())
                let high = n - previous
                previous = n
                let env = min(1, t / 0.02) * exp(-t / 0.03)
                v = high * env * 0.35
            case .wood:
                phase += 820 / rate
                let n = Double(noise.next())
                band += (n - band) * 0.2
                v = (sin(2 * .pi * phase) * 0.8 + band * 0.2) * exp(-t / 0.018)
            }
            let s = Float(v * attack * tail)
            track.add(frame: first + i, left: s * lg, right: s * rg)
        }
    }
}
