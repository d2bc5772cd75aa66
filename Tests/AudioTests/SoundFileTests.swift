import XCTest
@testable import Audio
import Platform

final class SoundFileTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "boardwalk-soundfiles-\(getpid())-\(name.hashValue)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Zero crossings per second / 2.
    func frequency(_ samples: [Float]) -> Double {
        var crossings = 0
        for i in 1..<samples.count where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(samples.count) / 48000)
    }

    func testWAVAt44100IsResampledTo48000() throws {
        let path = dir + "/tone.wav"
        let seconds = 0.5
        let input = (0..<Int(44100 * seconds)).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 44100)) }
        try WAVWriter.write(interleaved: input, channels: 1, sampleRate: 44100, to: path)
        let clip = try SoundFile.load(path)
        XCTAssertEqual(clip.channels, 1)
        XCTAssertEqual(clip.frames, 24000)
        let samples = clip.floatSamples()
        let middle = Array(samples[2000..<22000])
        XCTAssertEqual(frequency(middle), 1000, accuracy: 5)
        XCTAssertEqual(peak(middle), 0.5, accuracy: 0.01)
        XCTAssertEqual(rms(middle), 0.5 / Float(2).squareRoot(), accuracy: 0.005)
    }

    func testSoxMadeFLACAndOggLoad() throws {
        for (file, rate) in [("a.flac", 22050), ("b.ogg", 44100), ("c.wav", 96000)] {
            let path = dir + "/" + file
            let sox = Process()
            sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            sox.arguments = ["-n", "-r", "\(rate)", "-c", "2", path, "synth", "0.5", "sine", "440", "gain", "-6"]
            try sox.run()
            sox.waitUntilExit()
            XCTAssertEqual(sox.terminationStatus, 0)
            let clip = try SoundFile.load(path)
            XCTAssertEqual(clip.channels, 2, file)
            XCTAssertEqual(Double(clip.frames), 24000, accuracy: 50, file)
            let l = left(clip.floatSamples())
            XCTAssertEqual(frequency(Array(l[2000..<22000])), 440, accuracy: 5, file)
            XCTAssertEqual(peak(Array(l[2000..<22000])), 0.5, accuracy: 0.03, file)
        }
    }

    func testDownsamplingRemovesWhatCannotBeRepresented() {
        // A 30 kHz tone at 96 kHz is above 48 kHz's Nyquist: it must vanish, not alias.
        let input = (0..<9600).map { Float(0.5 * sin(2 * Double.pi * 30000 * Double($0) / 96000)) }
        let output = SoundFile.resample(input, from: 96000, to: 48000)
        XCTAssertEqual(output.count, 4800)
        XCTAssertLessThan(peak(Array(output[200..<4600])), 0.01)
    }

    func testBadFilesGiveClearErrors() throws {
        let garbage = dir + "/garbage.wav"
        _ = FileManager.default.createFile(atPath: garbage, contents: Data((0..<1000).map { UInt8($0 % 251) }))
        XCTAssertThrowsError(try SoundFile.load(garbage)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("sound file \(garbage): "), text)
        }
        XCTAssertThrowsError(try SoundFile.load(dir + "/missing.ogg")) { error in
            XCTAssertTrue("\(error)".contains("missing.ogg"))
        }
        let empty = dir + "/empty.wav"
        try WAVWriter.write(interleaved: [], channels: 1, sampleRate: 48000, to: empty)
        XCTAssertThrowsError(try SoundFile.load(empty))
    }

    func testLibraryUsesGoodFilesAndKeepsSynthForBadOnes() throws {
        let good = dir + "/click.wav"
        try WAVWriter.write(interleaved: [Float](repeating: 0.25, count: 4800), channels: 1, sampleRate: 48000, to: good)
        let bad = dir + "/zombieHit.mp3"
        _ = FileManager.default.createFile(atPath: bad, contents: Data("not an mp3".utf8))
        let found = SoundLibrary.overrides(inDirectory: dir)
        XCTAssertEqual(found, ["click": good, "zombieHit": bad])
        var logged: [String] = []
        let previous = Log.sink
        Log.sink = { logged.append($0) }
        defer { Log.sink = previous }
        let library = SoundLibrary(overrides: found.merging(["noSuchSound": good]) { a, _ in a }, base: Shared.library)
        XCTAssertEqual(library.clip(.click).frames, 4800)
        XCTAssertEqual(library.clip(.click).sample(frame: 10, channel: 0), 0.25, accuracy: 1e-4)
        XCTAssertEqual(library.clip(.zombieHit).floatSamples(), Shared.library.clip(.zombieHit).floatSamples())
        XCTAssertEqual(library.loadErrors.count, 2)
        XCTAssertTrue(logged.contains { $0.contains("zombieHit.mp3") && $0.contains("keeping the synthesized sound") }, "\(logged)")
    }

    func testSoundExportWritesTheBuiltInSoundsUnderTheirNames() throws {
        let out = dir + "/exported"
        XCTAssertEqual(soundExportMain([out, "zombieHit", "click"]), 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(names, ["click.wav", "zombieHit.wav"])
        // Named as a replacement would be, and the same samples as the built-in sound.
        XCTAssertEqual(SoundLibrary.overrides(inDirectory: out), ["click": out + "/click.wav", "zombieHit": out + "/zombieHit.wav"])
        let loaded = try SoundFile.load(out + "/zombieHit.wav")
        XCTAssertEqual(loaded.floatSamples(), Shared.library.clip(.zombieHit).floatSamples())
        XCTAssertEqual(soundExportMain([out, "noSuchSound"]), 2)
        XCTAssertEqual(soundExportMain([]), 2)
    }
}
