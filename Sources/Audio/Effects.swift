#if canImport(Glibc)
import Glibc
#endif

/// The effects, each made from the synth's parts. Sounds are mono (the mixer pans them),
/// have an envelope at both ends, and are normalized to one short-term loudness so no
/// effect jumps out over another.
enum Effects {
    /// Loudest 50 ms RMS of every effect: about -15 dBFS, under a -4 dBFS peak.
    static let loudness: Float = 0.18
    static let peakLimit: Float = 0.63

    static func render(_ sound: Sound) -> AudioClip {
        let track: Track
        switch sound {
        case .click: track = click()
        case .zombieHit: track = zombieHit()
        case .zombiesWon: track = zombiesWon()
        case .cardFlip: track = cardFlip()
        case .match: track = match()
        case .mismatch: track = mismatch()
        case .tileMerge: track = tileMerge()
        case .rightAnswer: track = rightAnswer()
        case .wrongAnswer: track = wrongAnswer()
        case .hint: track = hint()
        case .win: track = win()
        case .gameOver: track = gameOver()
        }
        track.removeDC()
        track.normalize(shortTermRMS: loudness * relativeLevel(sound), peakLimit: peakLimit)
        let length = track.audibleFrames()
        track.taper(seconds: 0.002, length: length)
        return track.clip(name: sound.rawValue, frames: length)
    }

    /// UI ticks sit a little under the game events they accompany.
    static func relativeLevel(_ sound: Sound) -> Float {
        switch sound {
        case .click: return 0.6
        case .cardFlip: return 0.7
        case .hint: return 0.8
        default: return 1
        }
    }

    static func n(_ name: String) -> Double { Double(Synth.midi(Substring(name))!) }

    /// A short, soft tick: a high sine blip falling a little in pitch, over a breath of noise.
    static func click() -> Track {
        let t = Track(seconds: 0.07, channels: 1)
        var blip = Instrument(wave: .sine, attack: 0.001, release: 0.01, ring: 0.012)
        blip.glide = 5
        blip.glideTime = 0.01
        Synth.note(t, start: 0, length: 0.05, midi: n("E6"), velocity: 1, instrument: blip)
        var air = Instrument(wave: .noise, attack: 0.0005, release: 0.005, ring: 0.004, cutoff: 6000)
        air.gain = 0.4
        Synth.note(t, start: 0, length: 0.02, midi: 60, velocity: 1, instrument: air)
        return t
    }

    /// A cartoon bonk: a falling low thump, a crunchy slap of noise, and a short "boing".
    static func zombieHit() -> Track {
        let t = Track(seconds: 0.42, channels: 1)
        Synth.drum(t, start: 0, .kick, velocity: 1)
        var slap = Instrument(wave: .noise, attack: 0.001, release: 0.02, ring: 0.03, cutoff: 2500)
        slap.filterSweep = 3
        slap.filterDecay = 0.02
        slap.gain = 0.9
        Synth.note(t, start: 0, length: 0.1, midi: 60, velocity: 1, instrument: slap)
        var boing = Instrument(wave: .triangle, attack: 0.004, release: 0.05, ring: 0.09)
        boing.glide = -7
        boing.glideTime = 0.09
        boing.vibratoRate = 18
        boing.vibratoDepth = 0.8
        boing.vibratoDelay = 0.02
        boing.gain = 0.6
        Synth.note(t, start: 0.015, length: 0.3, midi: n("G4"), velocity: 1, instrument: boing)
        return t
    }

    /// A zombie's laugh: four gravelly "huh"s, each a little higher and quicker, then a long
    /// "haaaa" that rises and sinks into a growl (formant voice, not an instrument).
    static func zombiesWon() -> Track {
        let t = Track(seconds: 2.4, channels: 1)
        let huhs: [(start: Double, pitch: Double)] = [(0.0, 98), (0.26, 104), (0.5, 110), (0.72, 118)]
        for (index, huh) in huhs.enumerated() {
            SpeakingVoice.render(t, SpeakingVoice.Syllable(start: huh.start, length: 0.19, pitch: huh.pitch, endPitch: huh.pitch * 0.8,
                                           formants: [620, 1080, 2450], growl: 0.5, gain: 0.9), seed: UInt32(11 + index))
        }
        SpeakingVoice.render(t, SpeakingVoice.Syllable(start: 1.0, length: 1.25, pitch: 132, endPitch: 70, formants: [760, 1180, 2550],
                                       breath: 0.06, growl: 0.8, gain: 1), seed: 29)
        return t
    }

    /// A paper swish: noise through a low-pass whose cutoff sweeps up and back.
    static func cardFlip() -> Track {
        let t = Track(seconds: 0.16, channels: 1)
        var swish = Instrument(wave: .noise, attack: 0.03, release: 0.04, ring: 0.035, cutoff: 1400)
        swish.filterSweep = 4
        swish.filterDecay = 0.03
        Synth.note(t, start: 0, length: 0.09, midi: 60, velocity: 1, instrument: swish)
        var tap = Instrument(wave: .sine, attack: 0.001, release: 0.02, ring: 0.015)
        tap.gain = 0.5
        Synth.note(t, start: 0.075, length: 0.04, midi: n("A5"), velocity: 1, instrument: tap)
        return t
    }

    static var bell: Instrument {
        Instrument(wave: .fm(ratio: 3.5, index: 1.6, decay: 0.12), attack: 0.002, release: 0.12, ring: 0.35)
    }

    /// Two bright bell notes a fifth apart, rising: "yes, a pair".
    static func match() -> Track {
        let t = Track(seconds: 0.75, channels: 1)
        Synth.note(t, start: 0, length: 0.5, midi: n("E6"), velocity: 0.8, instrument: bell)
        Synth.note(t, start: 0.09, length: 0.5, midi: n("B6"), velocity: 0.9, instrument: bell)
        return t
    }

    /// Two soft, muted notes falling a minor third: "not those" without scolding.
    static func mismatch() -> Track {
        let t = Track(seconds: 0.5, channels: 1)
        let soft = Instrument(wave: .triangle, attack: 0.008, release: 0.08, ring: 0.12, cutoff: 900, detune: 8)
        Synth.note(t, start: 0, length: 0.14, midi: n("D4"), velocity: 0.9, instrument: soft)
        Synth.note(t, start: 0.13, length: 0.22, midi: n("B3"), velocity: 0.9, instrument: soft)
        return t
    }

    /// A round pop that slides up an octave: two tiles becoming one bigger one.
    static func tileMerge() -> Track {
        let t = Track(seconds: 0.22, channels: 1)
        var pop = Instrument(wave: .sine, attack: 0.002, release: 0.05, ring: 0.06)
        pop.glide = -12
        pop.glideTime = 0.05
        Synth.note(t, start: 0, length: 0.14, midi: n("A4"), velocity: 1, instrument: pop)
        var body = Instrument(wave: .triangle, attack: 0.002, release: 0.05, ring: 0.05, cutoff: 2000)
        body.glide = -12
        body.glideTime = 0.05
        body.gain = 0.35
        Synth.note(t, start: 0, length: 0.12, midi: n("E5"), velocity: 1, instrument: body)
        return t
    }

    /// A quick rising major arpeggio on bells.
    static func rightAnswer() -> Track {
        let t = Track(seconds: 0.95, channels: 1)
        for (i, name) in ["C5", "E5", "G5", "C6"].enumerated() {
            Synth.note(t, start: Double(i) * 0.07, length: i == 3 ? 0.55 : 0.25, midi: n(name),
                       velocity: i == 3 ? 1 : 0.75, instrument: bell)
        }
        return t
    }

    /// A low two-note "uh-oh" on a muted buzzy voice.
    static func wrongAnswer() -> Track {
        let t = Track(seconds: 0.6, channels: 1)
        var buzz = Instrument(wave: .square, attack: 0.01, decay: 0.08, sustain: 0.6, release: 0.08, cutoff: 700)
        buzz.filterSweep = 2
        buzz.detune = 10
        Synth.note(t, start: 0, length: 0.15, midi: n("E3"), velocity: 0.9, instrument: buzz)
        Synth.note(t, start: 0.2, length: 0.25, midi: n("C3"), velocity: 1, instrument: buzz)
        return t
    }

    /// A sparkle: a fast climbing pentatonic run of little high bells.
    static func hint() -> Track {
        let t = Track(seconds: 0.75, channels: 1)
        let sparkle = Instrument(wave: .fm(ratio: 2, index: 0.8, decay: 0.05), attack: 0.002, release: 0.1, ring: 0.12)
        for (i, name) in ["G5", "A5", "C6", "D6", "E6", "G6", "A6"].enumerated() {
            Synth.note(t, start: Double(i) * 0.045, length: 0.3, midi: n(name), velocity: 0.5 + 0.07 * Float(i), instrument: sparkle)
        }
        return t
    }

    static var brass: Instrument {
        var b = Instrument(wave: .saw, attack: 0.02, decay: 0.15, sustain: 0.75, release: 0.15, cutoff: 1100)
        b.filterSweep = 2.2
        b.filterDecay = 0.12
        b.detune = 9
        b.vibratoDepth = 0.12
        b.vibratoDelay = 0.3
        return b
    }

    /// A short fanfare: triplet pickup, then a held major chord with a bell on top.
    static func win() -> Track {
        let t = Track(seconds: 1.9, channels: 1)
        let pickup = ["G4", "G4", "G4"]
        for (i, name) in pickup.enumerated() {
            Synth.note(t, start: Double(i) * 0.11, length: 0.08, midi: n(name), velocity: 0.7, instrument: brass)
        }
        Synth.note(t, start: 0.33, length: 0.2, midi: n("C5"), velocity: 0.85, instrument: brass)
        Synth.note(t, start: 0.55, length: 0.12, midi: n("G4"), velocity: 0.7, instrument: brass)
        for name in ["C4", "E4", "G4", "C5"] {
            Synth.note(t, start: 0.7, length: 0.9, midi: n(name), velocity: 0.55, instrument: brass)
        }
        Synth.note(t, start: 0.7, length: 0.9, midi: n("E6"), velocity: 0.5, instrument: bell)
        return t
    }

    /// The sad trombone: four falling notes, the last one long with a wide wobble.
    static func gameOver() -> Track {
        let t = Track(seconds: 2.6, channels: 1)
        var trombone = brass
        trombone.cutoff = 800
        trombone.filterSweep = 2.5
        trombone.filterDecay = 0.2
        trombone.vibratoDepth = 0
        let notes = ["G3", "F#3", "F3"]
        for (i, name) in notes.enumerated() {
            Synth.note(t, start: Double(i) * 0.42, length: 0.34, midi: n(name), velocity: 0.9, instrument: trombone)
        }
        var last = trombone
        last.vibratoDepth = 0.45
        last.vibratoRate = 5
        last.vibratoDelay = 0.25
        last.release = 0.35
        Synth.note(t, start: 1.26, length: 0.9, midi: n("E3"), velocity: 0.9, instrument: last)
        return t
    }
}
