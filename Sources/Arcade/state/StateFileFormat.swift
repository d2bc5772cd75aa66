#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The state files' text: `key=value` lines under a header, read back strictly (a file
/// that does not parse is moved aside by `StateStore.load`).
extension StateStore {
    public enum File: String, CaseIterable, Sendable {
        case scores, settings, counters, highscores

        /// Scores and counters are whole numbers; settings are text; high-score tables are
        /// lists of entries (`HighScoreTable`).
        var numeric: Bool { self == .scores || self == .counters }
    }


    func render(_ file: File) -> String {
        var text = "# Boardwalk \(file.rawValue), written by the kiosk (key=value)\n"
        switch file {
        case .scores: for key in scores.keys.sorted() { text += "\(key)=\(scores[key]!)\n" }
        case .counters: for key in counters.keys.sorted() { text += "\(key)=\(counters[key]!)\n" }
        case .settings: for key in settings.keys.sorted() { text += "\(key)=\(settings[key]!)\n" }
        case .highscores:
            for key in highScoreEntries.keys.sorted() {
                text += "\(key)=\(HighScoreTable.stored(highScoreEntries[key]!))\n"
            }
        }
        return text
    }

    /// The entries of a file, or why it is corrupt.
    static func parse(_ bytes: [UInt8], file: File) -> Result<[String: String], ParseFailure> {
        guard !bytes.isEmpty else { return .failure(ParseFailure(line: nil, reason: "empty")) }
        guard bytes.last == UInt8(ascii: "\n") else {
            return .failure(ParseFailure(line: nil, reason: "truncated (no final newline)"))
        }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ParseFailure(line: nil, reason: "not UTF-8 text"))
        }
        var entries: [String: String] = [:]
        var number = 0
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for line in lines.dropLast() {
            number += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                return .failure(ParseFailure(line: number, reason: "no '='"))
            }
            let key = String(line[..<equals])
            let value = String(line[line.index(after: equals)...])
            guard isValidKey(key) else { return .failure(ParseFailure(line: number, reason: "bad key")) }
            if file.numeric, (Int(value) ?? -1) < 0 {
                return .failure(ParseFailure(line: number, reason: "not a whole number"))
            }
            if file == .highscores, HighScoreTable.parseEntries(value) == nil {
                return .failure(ParseFailure(line: number, reason: "not a high-score table"))
            }
            entries[key] = value
        }
        return .success(entries)
    }

    struct ParseFailure: Error, Equatable {
        var line: Int?
        var reason: String
    }

    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.count <= 128 && key.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// Renames a bad file to NAME.corrupt-N (the first free N) so it can be looked at later.
    func moveAside(_ filePath: String) -> String? {
        for number in 1...1000 {
            let target = "\(filePath).corrupt-\(number)"
            if Files.exists(target) { continue }
            return rename(filePath, target) == 0 ? target : nil
        }
        return nil
    }
}
