import XCTest
@testable import Audio

/// The lose sound is a laugh: syllables with a voice's pitch, not a tune on a kazoo.
final class ZombieLaughTests: XCTestCase {
    private let rate = 48000.0

    /// RMS per 10 ms window.
    private func envelope(_ samples: [Float]) -> [Float] {
        stride(from: 0, to: samples.count - 480, by: 480).map { rms(Array(samples[$0..<($0 + 480)])) }
    }

    /// Where the level rises through half the loudest window's level: each syllable's start, in seconds.
    private func onsets(_ levels: [Float]) -> [Double] {
        let threshold = (levels.max() ?? 0) * 0.35
        var result: [Double] = []
        var above = false
        for (index, level) in levels.enumerated() {
            if !above && level > threshold { result.append(Double(index) * 0.01) }
            above = level > threshold * 0.6 ? (above || level > threshold) : false
        }
        return result
    }

    /// The fundamental by autocorrelation over 60-400 Hz on 40 ms from `start`, or nil where unvoiced.
    private func pitch(_ samples: [Float], at start: Double) -> Double? {
        let from = Int(start * rate), count = 1920
        guard from + count + 800 < samples.count else { return nil }
        let window = Array(samples[from..<(from + count + 800)])
        var best = (lag: 0, score: 0.0)
        var energy = 0.0
        for i in 0..<count { energy += Double(window[i] * window[i]) }
        guard energy > 0 else { return nil }
        for lag in Int(rate / 400)...Int(rate / 60) {
            var sum = 0.0
            for i in 0..<count { sum += Double(window[i] * window[i + lag]) }
            if sum / energy > best.score { best = (lag, sum / energy) }
        }
        // A best lag at the search's short end is breath noise (the "h"), not a pitch.
        return best.score > 0.3 && best.lag > Int(rate / 400) + 2 ? rate / Double(best.lag) : nil
    }

    func testTheLoseSoundIsALaughOfFiveSyllablesInAVoicesRange() {
        let samples = Effects.render(.zombiesWon).floatSamples()
        let seconds = Double(samples.count) / rate
        XCTAssertTrue((1.8...2.6).contains(seconds), "\(seconds) s")
        let levels = envelope(samples)
        let starts = onsets(levels)
        print("laugh onsets: \(starts)")
        XCTAssertEqual(starts.count, 5, "huh, huh, huh, huh, haaa: \(starts)")
        // The "huh"s come quicker and quicker; the last syllable is the long one.
        if starts.count == 5 {
            let gaps = zip(starts.dropFirst(), starts).map { $0 - $1 }
            XCTAssertLessThan(gaps[2], gaps[0] + 0.02)
            XCTAssertGreaterThan(seconds - starts[4], 1.0, "the long haaa")
        }
        // A low voice (a kazoo tune sat at 330-440 Hz): every voiced window is under 160 Hz.
        var contour: [Double] = []
        for time in stride(from: 0.05, to: seconds - 0.1, by: 0.05) {
            if let f0 = pitch(samples, at: time) { contour.append(f0) }
        }
        print("laugh pitch contour (Hz): \(contour.map { Int($0) })")
        XCTAssertGreaterThan(contour.count, 15, "mostly voiced")
        XCTAssertTrue(contour.allSatisfy { (60...170).contains($0) }, "\(contour)")
        // The final "haaa" sinks: its last voiced pitch is well under its first.
        let haaa = stride(from: 1.05, to: 2.2, by: 0.05).compactMap { pitch(samples, at: $0) }
        XCTAssertGreaterThan(haaa.count, 5)
        if let first = haaa.first, let last = haaa.last { XCTAssertLessThan(last, first * 0.8, "\(haaa)") }
    }
}
