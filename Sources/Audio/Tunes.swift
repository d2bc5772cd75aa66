#if canImport(Glibc)
import Glibc
#endif

/// The background music: one loop per game and one for the menu, each written out as a
/// small score (chords, melody, bass, accompaniment and drum patterns) that a sequencer
/// plays through the synth into a looping stereo track.

struct TuneSpec {
    enum Comp {
        /// Broken chords: chord tone index per eighth (-1 = nothing), at this octave.
        case arpeggio([Int], octave: Int, Instrument, velocity: Float)
        /// Chord hits on these eighths of each bar, each held `length` eighths.
        case stabs([Int], length: Double, octave: Int, Instrument, velocity: Float)
        /// The chord held for the whole bar.
        case pad(octave: Int, Instrument, velocity: Float)
    }

    var bpm: Double
    /// One chord per bar; "Dm7/G7" splits a bar in halves.
    var chords: [String]
    /// Notes as "E5:2" (pitch, length in eighths), rests as "-:2"; bars split by "|".
    var melody: String
    var lead: Instrument
    var leadVelocity: Float = 0.8
    var leadPan: Float = 0
    /// Per eighth: "1" root, "3" third, "5" fifth, "7" seventh, "8" octave, "-" nothing.
    var bass: [String]
    var bassInstrument: Instrument
    var bassVelocity: Float = 0.8
    var comps: [Comp]
    /// 16 steps a bar: k kick, s snare, h hat, x shaker, w woodblock, t tom, "." rest.
    var drums: String
    /// Used on every 8th bar instead of `drums`.
    var fill: String
    var drumLevel: Float = 0.6
    /// Off-beat eighths are late by this fraction of an eighth.
    var swing = 0.0
    /// Echo: delay in eighths and feedback gain (0 = dry).
    var echoEighths = 3.0
    var echo: Float = 0.25
}

enum Tunes {
    /// Whole-loop RMS about -23 dBFS, peak under -6 dBFS: under the effects, never over them.
    static let loudness: Float = 0.07
    static let peakLimit: Float = 0.5

    static func render(_ music: Music) -> AudioClip {
        let track = sequence(spec(music))
        track.normalize(shortTermRMS: loudness * 1.4, peakLimit: peakLimit)
        let rms = track.levels().rms
        if rms > 0 { track.scale(min(loudness / rms, peakLimit / max(track.levels().peak, 1e-6))) }
        return track.clip(name: music.rawValue)
    }

    /// Chord tones as MIDI numbers around octave 4, root first.
    static func chordTones(_ symbol: Substring) -> [Int] {
        var name = String(symbol.prefix(1))
        var rest = symbol.dropFirst()
        if let c = rest.first, c == "#" || c == "b" { name.append(c); rest = rest.dropFirst() }
        let root = Synth.midi(Substring(name + "4")) ?? 60
        let intervals: [Int]
        switch rest {
        case "m": intervals = [0, 3, 7]
        case "7": intervals = [0, 4, 7, 10]
        case "m7": intervals = [0, 3, 7, 10]
        case "maj7": intervals = [0, 4, 7, 11]
        case "dim": intervals = [0, 3, 6, 9]
        case "sus4": intervals = [0, 5, 7]
        case "6": intervals = [0, 4, 7, 9]
        case "m6": intervals = [0, 3, 7, 9]
        default: intervals = [0, 4, 7]
        }
        return intervals.map { root + $0 }
    }

    static func sequence(_ spec: TuneSpec) -> Track {
        let eighth = 60 / spec.bpm / 2
        let bars = spec.chords.count
        let barLength = 8 * eighth
        let track = Track(seconds: Double(bars) * barLength, channels: 2, wraps: true)
        func time(_ eighths: Double) -> Double {
            let whole = eighths.rounded(.down)
            var t = eighths * eighth
            if whole == eighths && Int(whole) % 2 == 1 { t += spec.swing * eighth }
            return t
        }
        // Chords per half bar.
        var halves: [[Int]] = []
        for symbol in spec.chords {
            let parts = symbol.split(separator: "/")
            let first = chordTones(parts[0])
            halves.append(first)
            halves.append(parts.count > 1 ? chordTones(parts[1]) : first)
        }
        // Melody.
        var cursor = 0.0
        var seed: UInt32 = 1
        for token in spec.melody.split(whereSeparator: { $0 == " " || $0 == "|" || $0 == "\n" }) {
            let parts = token.split(separator: ":")
            guard parts.count == 2, let length = Double(parts[1]) else { continue }
            if parts[0] != "-", let midi = Synth.midi(parts[0]) {
                let start = time(cursor)
                let end = time(cursor + length)
                seed &+= 1
                Synth.note(track, start: start, length: max(0.05, (end - start) * 0.9), midi: Double(midi),
                           velocity: spec.leadVelocity, pan: spec.leadPan, instrument: spec.lead, seed: seed)
            }
            cursor += length
        }
        for half in 0..<(bars * 2) {
            let tones = halves[half]
            let barIndex = half / 2
            let halfStart = Double(half * 4)
            // Bass: the pattern's 8 steps span a bar; each half uses its own chord.
            for step in 0..<4 {
                let token = spec.bass[(half % 2) * 4 + step]
                guard token != "-" else { continue }
                var length = 1.0
                var k = (half % 2) * 4 + step + 1
                while k < 8 && spec.bass[k] == "-" && k < (half % 2) * 4 + 4 { length += 1; k += 1 }
                let root = tones[0] - 24
                let degree: Int
                switch token {
                case "3": degree = tones[1] - tones[0]
                case "5": degree = tones[2] - tones[0]
                case "7": degree = tones.count > 3 ? tones[3] - tones[0] : 12
                case "8": degree = 12
                default: degree = 0
                }
                let start = time(halfStart + Double(step))
                Synth.note(track, start: start, length: length * eighth * 0.85, midi: Double(root + degree),
                           velocity: spec.bassVelocity, pan: 0, instrument: spec.bassInstrument, seed: UInt32(half))
            }
            // Accompaniment.
            for comp in spec.comps {
                switch comp {
                case let .arpeggio(pattern, octave, instrument, velocity):
                    for step in 0..<4 {
                        let index = pattern[((half % 2) * 4 + step) % pattern.count]
                        guard index >= 0 else { continue }
                        let midi = tones[index % tones.count] + 12 * (index / tones.count) + 12 * (octave - 4)
                        let pan: Float = step % 2 == 0 ? -0.35 : 0.35
                        Synth.note(track, start: time(halfStart + Double(step)), length: eighth * 0.9, midi: Double(midi),
                                   velocity: velocity, pan: pan, instrument: instrument)
                    }
                case let .stabs(hits, length, octave, instrument, velocity):
                    for hit in hits where hit / 4 == half % 2 {
                        for (i, tone) in tones.enumerated() {
                            Synth.note(track, start: time(Double(barIndex * 8 + hit)), length: length * eighth,
                                       midi: Double(tone + 12 * (octave - 4)), velocity: velocity / Float(tones.count) * 2,
                                       pan: Float(i) * 0.2 - 0.3, instrument: instrument)
                        }
                    }
                case let .pad(octave, instrument, velocity):
                    for (i, tone) in tones.enumerated() {
                        Synth.note(track, start: halfStart * eighth, length: 4 * eighth, midi: Double(tone + 12 * (octave - 4)),
                                   velocity: velocity / Float(tones.count) * 2, pan: Float(i % 2 == 0 ? -0.4 : 0.4),
                                   instrument: instrument)
                    }
                }
            }
        }
        // Drums.
        for bar in 0..<bars {
            let pattern = Array((bar % 8 == 7 ? spec.fill : spec.drums).utf8)
            for step in 0..<min(16, pattern.count) {
                let kind: Synth.Drum
                var level = spec.drumLevel
                var pan: Float = 0
                switch pattern[step] {
                case UInt8(ascii: "k"): kind = .kick
                case UInt8(ascii: "s"): kind = .snare; level *= 0.8
                case UInt8(ascii: "h"): kind = .hat; level *= step % 4 == 0 ? 0.6 : 0.45; pan = 0.3
                case UInt8(ascii: "x"): kind = .shaker; level *= 0.6; pan = -0.25
                case UInt8(ascii: "w"): kind = .wood; level *= 0.5; pan = step % 8 < 4 ? -0.4 : 0.4
                case UInt8(ascii: "t"): kind = .tom; level *= 0.8
                default: continue
                }
                let sixteenths = Double(bar * 16 + step)
                Synth.drum(track, start: time(sixteenths / 2), kind, velocity: level, pan: pan, seed: UInt32(bar * 16 + step))
            }
        }
        applyEcho(track, delay: spec.echoEighths * eighth, feedback: spec.echo)
        return track
    }

    /// A ping-pong echo read circularly from the finished loop, so it too crosses the seam.
    static func applyEcho(_ track: Track, delay: Double, feedback: Float) {
        guard feedback > 0 else { return }
        let frames = track.frames
        let d = Int(delay * Synth.rate)
        let dry = Array(UnsafeBufferPointer(start: track.data, count: frames * 2))
        dry.withUnsafeBufferPointer { src in
            for tap in 1...4 {
                let gain = powf(feedback, Float(tap))
                let offset = (d * tap) % frames
                // Odd taps swap sides: the echo bounces left and right.
                let swap = tap % 2 == 1
                for f in 0..<frames {
                    var from = f - offset
                    if from < 0 { from += frames }
                    let l = src[2 * from], r = src[2 * from + 1]
                    track.data[2 * f] += gain * (swap ? r : l) * 0.8
                    track.data[2 * f + 1] += gain * (swap ? l : r) * 0.8
                }
            }
        }
    }
}
