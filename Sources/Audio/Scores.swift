/// The scores. Each loop is 16 bars (30-50 s), in an A A' B A'' shape, with its own
/// character: a friendly menu, a spooky-fun monster march for the zombies, a curious
/// marimba tune for the picture quiz, a cool groove for 2048 and a calm music box for memory.
extension Tunes {
    static func spec(_ music: Music) -> TuneSpec {
        switch music {
        case .menu: return menu
        case .beatZombies: return zombies
        case .guessPicture: return quiz
        case .game2048: return groove
        case .memoryMatch: return calm
        }
    }

    static var pluck: Instrument {
        var i = Instrument(wave: .square, attack: 0.004, release: 0.08, ring: 0.28, cutoff: 1800)
        i.filterSweep = 2.5
        i.filterDecay = 0.08
        i.detune = 6
        return i
    }

    static var softBass: Instrument {
        var i = Instrument(wave: .triangle, attack: 0.006, decay: 0.1, sustain: 0.7, release: 0.06, cutoff: 600)
        i.gain = 1.2
        return i
    }

    static var pizzicato: Instrument {
        var i = Instrument(wave: .saw, attack: 0.003, release: 0.06, ring: 0.16, cutoff: 500)
        i.filterSweep = 2.5
        i.filterDecay = 0.05
        return i
    }

    static var marimba: Instrument {
        Instrument(wave: .fm(ratio: 4, index: 1.2, decay: 0.03), attack: 0.002, release: 0.08, ring: 0.22)
    }

    static var celesta: Instrument {
        Instrument(wave: .fm(ratio: 3, index: 0.9, decay: 0.2), attack: 0.003, release: 0.3, ring: 0.5)
    }

    static var electricPiano: Instrument {
        Instrument(wave: .fm(ratio: 1, index: 1.4, decay: 0.25), attack: 0.004, release: 0.2, ring: 0.7)
    }

    static var warmPad: Instrument {
        var i = Instrument(wave: .triangle, attack: 0.5, decay: 0.5, sustain: 0.8, release: 0.8, cutoff: 1400, detune: 12)
        i.vibratoDepth = 0.05
        i.vibratoRate = 4
        return i
    }

    static let menu = TuneSpec(
        bpm: 112,
        chords: ["C", "Am", "F", "G", "C", "Am", "Dm7/G7", "C", "F", "G", "Em", "Am", "F", "G", "C", "G7"],
        melody: """
        E5:2 G5:2 E5:1 D5:1 C5:2 | A4:2 C5:2 E5:4 | F5:2 E5:1 D5:1 C5:2 A4:2 | G4:2 B4:2 D5:4 |
        E5:2 G5:2 C6:2 B5:1 A5:1 | G5:2 E5:2 C5:4 | D5:2 F5:2 E5:1 D5:1 B4:2 | C5:6 -:2 |
        A5:3 G5:1 F5:2 A5:2 | G5:3 F5:1 E5:2 D5:2 | E5:2 G5:2 B5:2 G5:2 | A5:6 -:2 |
        F5:2 A5:2 C6:2 A5:2 | B5:2 G5:2 D5:2 G5:2 | E5:2 D5:1 E5:1 G5:2 E5:2 | D5:4 -:2 G4:2
        """,
        lead: pluck, leadVelocity: 0.8,
        bass: ["1", "-", "5", "-", "8", "-", "5", "-"], bassInstrument: softBass,
        comps: [.arpeggio([0, 1, 2, 1, 3, 1, 2, 1], octave: 4, marimba, velocity: 0.3)],
        drums: "k...h.h.s...h.h.", fill: "k...h.h.s.s.s.ss", drumLevel: 0.5,
        swing: 0.12, echoEighths: 3, echo: 0.2)

    static var theremin: Instrument {
        var i = Instrument(wave: .triangle, attack: 0.03, decay: 0.1, sustain: 0.8, release: 0.1, cutoff: 2400)
        i.vibratoRate = 6.5
        i.vibratoDepth = 0.3
        i.vibratoDelay = 0.08
        i.glide = -1
        i.glideTime = 0.06
        return i
    }

    static var organ: Instrument {
        var i = Instrument(wave: .square, attack: 0.005, decay: 0.05, sustain: 0.6, release: 0.05, cutoff: 1200)
        i.detune = 10
        return i
    }

    static let zombies = TuneSpec(
        bpm: 120,
        chords: ["Dm", "Dm", "Gm", "A7", "Dm", "Bb", "Gm/A7", "Dm", "Bb", "F", "Gm", "A7", "Dm", "Gm", "A7", "Dm"],
        melody: """
        D5:1 -:1 F5:1 -:1 A5:2 G#5:1 A5:1 | Bb5:2 A5:2 F5:2 D5:2 | G5:1 -:1 Bb5:1 -:1 D6:2 C#6:1 D6:1 | E6:2 C#6:2 A5:4 |
        D5:1 -:1 F5:1 -:1 A5:2 D6:2 | C6:1 Bb5:1 A5:1 G5:1 F5:2 D5:2 | G5:2 Bb5:2 A5:2 C#5:2 | D5:4 -:2 A4:2 |
        F5:3 E5:1 F5:2 D5:2 | C5:2 F5:2 A5:4 | Bb5:3 A5:1 G5:2 D5:2 | C#5:2 E5:2 G5:2 A5:2 |
        D6:2 A5:2 F5:2 D5:2 | G5:1 A5:1 Bb5:2 D6:2 Bb5:2 | A5:2 G5:1 F5:1 E5:2 C#5:2 | D5:4 -:4
        """,
        lead: theremin, leadVelocity: 0.75, leadPan: 0.1,
        bass: ["1", "-", "-", "-", "5", "-", "-", "7"], bassInstrument: pizzicato, bassVelocity: 1,
        comps: [.stabs([2, 6], length: 0.8, octave: 4, organ, velocity: 0.3)],
        drums: "k...w...k...w.w.", fill: "k...w...t.t.t.tt", drumLevel: 0.55,
        swing: 0.2, echoEighths: 3, echo: 0.3)

    static let quiz = TuneSpec(
        bpm: 100,
        chords: ["F", "Dm", "Bb", "C", "F", "Dm", "Gm7", "C7", "Bb", "C", "Am", "Dm", "Bb", "C", "F", "C7"],
        melody: """
        C5:1 F5:1 A5:1 F5:1 C6:2 A5:2 | D5:1 F5:1 A5:1 D6:1 C6:2 A5:2 | Bb4:1 D5:1 F5:1 Bb5:1 A5:1 G5:1 F5:2 | E5:2 G5:2 C5:4 |
        C5:1 F5:1 A5:1 C6:1 D6:2 C6:2 | A5:1 F5:1 D5:1 F5:1 A5:4 | G5:1 A5:1 Bb5:2 D6:2 Bb5:2 | A5:2 G5:2 E5:2 C5:2 |
        D6:3 C6:1 Bb5:2 F5:2 | E5:3 F5:1 G5:4 | C6:3 Bb5:1 A5:2 E5:2 | F5:2 A5:2 D6:4 |
        D6:2 C6:1 Bb5:1 A5:2 G5:2 | G5:1 A5:1 Bb5:1 G5:1 E5:2 C5:2 | F5:2 A5:2 C6:2 A5:2 | G5:2 E5:2 C5:2 -:2
        """,
        lead: marimba, leadVelocity: 0.9,
        bass: ["1", "-", "5", "-", "1", "-", "5", "3"], bassInstrument: pizzicato, bassVelocity: 1,
        comps: [.stabs([1, 3, 5, 7], length: 0.6, octave: 4, pluck, velocity: 0.18)],
        drums: "x.x.x.x.x.x.x.x.", fill: "x.x.x.x.w.w.www.", drumLevel: 0.5,
        swing: 0.1, echoEighths: 3, echo: 0.2)

    static let groove = TuneSpec(
        bpm: 96,
        chords: ["Am7", "Fmaj7", "Dm7", "Em7", "Am7", "Fmaj7", "Dm7", "E7", "Fmaj7", "G", "Em7", "Am7", "Dm7", "G", "Cmaj7", "E7"],
        melody: """
        E5:3 C5:1 A4:2 B4:2 | C5:3 A4:1 E5:4 | F5:2 E5:2 D5:2 C5:2 | B4:2 G4:2 E5:4 |
        A5:3 G5:1 E5:2 C5:2 | A5:2 G5:2 E5:4 | F5:1 E5:1 D5:1 C5:1 D5:2 F5:2 | E5:4 G#4:4 |
        A4:2 C5:2 F5:2 E5:2 | D5:2 B4:2 G4:4 | G5:2 E5:2 B4:2 D5:2 | C5:2 B4:1 A4:1 E5:4 |
        F5:2 A5:2 C6:2 A5:2 | B5:2 A5:1 G5:1 D5:4 | E5:2 G5:2 B5:2 C6:2 | B5:4 G#5:2 E5:2
        """,
        lead: {
            var i = Instrument(wave: .square, attack: 0.01, decay: 0.2, sustain: 0.5, release: 0.15, cutoff: 1300)
            i.vibratoDepth = 0.08
            i.detune = 7
            return i
        }(), leadVelocity: 0.6, leadPan: -0.1,
        bass: ["1", "-", "-", "1", "-", "5", "8", "-"], bassInstrument: softBass, bassVelocity: 0.9,
        comps: [.stabs([0, 3, 6], length: 1.5, octave: 4, electricPiano, velocity: 0.35)],
        drums: "k.....h.s.....h.", fill: "k.....h.s...s.ss", drumLevel: 0.5,
        swing: 0.15, echoEighths: 3, echo: 0.25)

    static let calm = TuneSpec(
        bpm: 76,
        chords: ["Gmaj7", "Em7", "Cmaj7", "D", "Gmaj7", "Bm7", "Cmaj7", "D", "Em7", "Cmaj7", "G", "D", "Cmaj7", "Bm7", "Am7", "D"],
        melody: """
        B5:4 A5:2 G5:2 | G5:4 E5:4 | E5:2 G5:2 B5:2 A5:2 | F#5:8 |
        B5:4 D6:2 B5:2 | A5:4 F#5:4 | G5:2 E5:2 C6:2 B5:2 | A5:8 |
        G5:3 A5:1 B5:4 | E6:4 D6:2 B5:2 | D6:4 B5:2 G5:2 | A5:8 |
        G5:2 A5:2 B5:2 C6:2 | D6:4 B5:2 F#5:2 | A5:4 G5:2 E5:2 | F#5:6 -:2
        """,
        lead: celesta, leadVelocity: 0.7,
        bass: ["1", "-", "-", "-", "5", "-", "-", "-"], bassInstrument: {
            var i = Instrument(wave: .sine, attack: 0.02, decay: 0.3, sustain: 0.6, release: 0.3)
            i.gain = 1.3
            return i
        }(), bassVelocity: 0.8,
        comps: [.arpeggio([0, 1, 2, 3, 4, 3, 2, 1], octave: 4, celesta, velocity: 0.22),
                .pad(octave: 3, warmPad, velocity: 0.18)],
        drums: "................", fill: "................", drumLevel: 0,
        swing: 0, echoEighths: 3, echo: 0.35)
}
