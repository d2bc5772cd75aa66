import Foundation
import XCTest
@testable import Audio
import Platform

/// Operator sound files are size-checked on their header before anything is allocated,
/// and long music is decoded by whoever asks for the tune (the music thread), not at load.
final class SizeLimitTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "boardwalk-sizelimits-\(getpid())-\(name.hashValue)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A 16-bit PCM WAV whose header claims `dataBytes` of audio; the file is made that long
    /// as a sparse file (no disk used), so the header is consistent and libsndfile trusts it.
    func claimingWAV(_ name: String, channels: Int, rate: Int, dataBytes: UInt32) throws -> String {
        var header: [UInt8] = []
        func u32(_ v: UInt32) { header += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24)] }
        func u16(_ v: Int) { header += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        header += Array("RIFF".utf8); u32(36 &+ dataBytes); header += Array("WAVEfmt ".utf8)
        u32(16); u16(1); u16(channels); u32(UInt32(rate)); u32(UInt32(rate * channels * 2)); u16(channels * 2); u16(16)
        header += Array("data".utf8); u32(dataBytes)
        let path = dir + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(header)))
        XCTAssertEqual(truncate(path, off_t(header.count) + off_t(dataBytes)), 0)
        return path
    }

    func testHoursOfEightChannelAudioAreRefusedFromTheHeader() throws {
        // 8 channels, 48 kHz, 16-bit: 4,000,000,000 bytes is about 87 minutes.
        let path = try claimingWAV("menu.wav", channels: 8, rate: 48000, dataBytes: 4_000_000_000)
        XCTAssertThrowsError(try SoundFile.load(path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("8-channel") && text.contains("5208 s") && text.contains("the limit is 240 s"), text)
        }
    }

    func testHighRateWithinTheTimeLimitIsRefusedByBytes() throws {
        XCTAssertNil(SoundFile.sizeProblem(frames: 48000 * 200, channels: 2, rate: 48000, maxSeconds: 240))
        let problem = SoundFile.sizeProblem(frames: 768_000 * 60, channels: 2, rate: 768_000, maxSeconds: 240)
        XCTAssertTrue(problem?.contains("352 MB decoded") == true, problem ?? "nil")
        XCTAssertNotNil(SoundFile.sizeProblem(frames: .max, channels: .max, rate: 1000, maxSeconds: 240))
        XCTAssertNotNil(SoundFile.sizeProblem(frames: 0, channels: 1, rate: 48000, maxSeconds: 240))
        let path = try claimingWAV("fast.wav", channels: 2, rate: 768_000, dataBytes: 768_000 * 4 * 60)
        XCTAssertThrowsError(try SoundFile.load(path)) { XCTAssertTrue("\($0)".contains("MB decoded"), "\($0)") }
    }

    func testEffectsMustBeShortAndMusicIsReadWhenAskedFor() throws {
        let longEffect = dir + "/click.wav"
        try WAVWriter.write(interleaved: [Float](repeating: 0.1, count: 48000 * 11), channels: 1, sampleRate: 48000, to: longEffect)
        let song = dir + "/menu.wav"
        try WAVWriter.write(interleaved: [Float](repeating: 0.2, count: 48000 * 2 * 3), channels: 2, sampleRate: 48000, to: song)
        let library = SoundLibrary(overrides: ["click": longEffect, "menu": song], base: Shared.library)
        XCTAssertEqual(library.loadErrors.count, 1)
        XCTAssertTrue("\(library.loadErrors.first!)".contains("the limit is 10 s"))
        XCTAssertEqual(library.clip(.click).floatSamples(), Shared.library.clip(.click).floatSamples())
        XCTAssertNil(library.readyClip(.menu), "music files wait for the music thread")
        XCTAssertEqual(library.clip(.menu).frames, 48000 * 3)
        XCTAssertEqual(library.readyClip(.menu)?.frames, 48000 * 3)
    }
}
