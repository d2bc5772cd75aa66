import XCTest
@testable import Audio

final class SynthTests: XCTestCase {
    func testEveryEffectIsEnvelopedAndLevelMatched() {
        for sound in Sound.allCases {
            let clip = Shared.library.clip(sound)
            let samples = clip.floatSamples()
            XCTAssertEqual(clip.channels, 1, "\(sound)")
            XCTAssertLessThan(clip.duration, 3, "\(sound) is short")
            XCTAssertEqual(samples.first!, 0, accuracy: 1e-4, "\(sound) starts at zero: no click")
            XCTAssertEqual(samples.last!, 0, accuracy: 1e-4, "\(sound) ends at zero: no click")
            // An envelope, not a switch: the first millisecond averages well under the
            // peak, and the last 2 ms have died away.
            let top = peak(samples)
            XCTAssertLessThan(samples[0..<48].reduce(0) { $0 + abs($1) } / 48, 0.3 * top, "\(sound) start")
            XCTAssertLessThan(samples[(samples.count - 96)...].reduce(0) { $0 + abs($1) } / 96, 0.03 * top, "\(sound) end")
            let track = Track(seconds: clip.duration, channels: 1)
            for i in 0..<min(track.frames, samples.count) { track.data[i] = samples[i] }
            let levels = track.levels()
            XCTAssertLessThanOrEqual(levels.peak, Effects.peakLimit + 1e-3, "\(sound) peak")
            let target = Effects.loudness * Effects.relativeLevel(sound)
            let decibels = 20 * log10(levels.shortTermRMS / target)
            XCTAssertEqual(decibels, 0, accuracy: 3, "\(sound) loudness within 3 dB of its target")
        }
    }

    func testEveryTuneIsLongEnoughLevelledAndLoopsCleanly() {
        for music in Music.allCases {
            let clip = Shared.library.clip(music)
            XCTAssertEqual(clip.channels, 2)
            XCTAssertGreaterThanOrEqual(clip.duration, 30, "\(music) plays 30 s before it repeats")
            let (peakLevel, rmsLevel) = clip.levels()
            XCTAssertLessThanOrEqual(peakLevel, Tunes.peakLimit + 1e-3, "\(music)")
            XCTAssertEqual(20 * log10(rmsLevel / Tunes.loudness), 0, accuracy: 1.5, "\(music) loudness")
            // Across the seam (last 10 ms then first 10 ms) the waveform steps no more
            // than it does anywhere inside the tune.
            let l = (0..<clip.frames).map { Float(clip.samples[2 * $0]) / 32767 }
            let seam = Array(l[(l.count - 480)...]) + Array(l[0..<480])
            let inside = maxStep(l[0..<l.count])
            XCTAssertLessThanOrEqual(maxStep(seam[0..<seam.count]), inside, "\(music) seam")
            let jump = abs(l[0] - l[l.count - 1])
            XCTAssertLessThan(jump, 0.05, "\(music) last sample runs into the first")
        }
    }

    func testTunesDiffer() {
        let a = left(Shared.library.clip(Music.menu).floatSamples())
        let b = left(Shared.library.clip(Music.beatZombies).floatSamples())
        let n = min(a.count, b.count)
        var dot: Float = 0, na: Float = 0, nb: Float = 0
        for i in stride(from: 0, to: n, by: 3) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i] }
        XCTAssertLessThan(abs(dot / (na * nb).squareRoot()), 0.2)
    }

    func testRendersAreDeterministic() {
        let one = Effects.render(.zombieHit).floatSamples()
        let two = Effects.render(.zombieHit).floatSamples()
        XCTAssertEqual(one, two)
    }

    func testRenderSoundsToWAVWritesReadableFiles() throws {
        let dir = NSTemporaryDirectory() + "boardwalk-sounds-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try renderSoundsToWAV(directory: dir, library: Shared.library)
        XCTAssertEqual(paths.count, Sound.allCases.count + Music.allCases.count)
        let hit = try SoundFile.load(dir + "/zombieHit.wav")
        XCTAssertEqual(hit.floatSamples(), Shared.library.clip(.zombieHit).floatSamples())
    }
}
