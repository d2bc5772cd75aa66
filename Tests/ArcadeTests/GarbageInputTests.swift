import TestSupport
import GameCore
import XCTest
@testable import Arcade

/// Whatever bytes are in a config or state file, reading them never crashes.
final class GarbageInputTests: XCTestCase {
    func testRandomBytesNeverCrashTheReaders() {
        var random = SeededRandom(seed: 2048)
        // Bytes biased toward the format's own characters, so parsing gets deep.
        let alphabet = Array("[]=#.\n\r \t\"akioskdisplay_rotation0123456789,".utf8) + [0, 0xFF, 0xC3, 0xE4]
        for round in 0..<400 {
            let length = Int.random(in: 0...300, using: &random)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let parsed = ConfigFile.parse(text, origin: "fuzz-\(round)")
            var settings = Settings()
            for entry in parsed.entries { _ = Config.apply(entry, to: &settings) }
            _ = StateStore.parse(bytes, file: .scores)
            _ = StateStore.parse(bytes, file: .settings)
            for key in Settings.keys { _ = settings.apply(key: key, value: text) }
        }
    }
}
