#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The state files' text: `key=value` lines under a header, read back strictly (a file
/// that does not parse is moved aside by `StateStore.load`).
extension StateStore {
    public enum File: String, CaseIterable, Sendable {
        case scores, settings, counters

        /// Seconds from a file's first unsaved change to its write. A write costs the SD
        /// card a page and two journal commits, so a game's plays, play time and best wait
        /// for company; what must not wait writes itself at once (`flush`): coins and
        /// credits, a start, the PIN's tries, a table entry, an operator's action.
        var delay: Double {
            switch self {
            case .settings: 10  // an operator's slider or a game's option: its last step
            case .scores, .counters: 300
            }
        }
    }

    /// The file the high-score tables had before they joined the bests in `scores`: read
    /// once, and removed when `scores` holds them.
    static let oldTablesName = "highscores"
    /// A table's line in `scores`: its variant's key (the same as its best's) after this.
    static let tablePrefix = "top."

    func render(_ file: File) -> String {
        var text = "# Boardwalk \(file.rawValue), written by the kiosk (key=value)\n"
        switch file {
        case .scores:
            for key in scores.keys.sorted() { text += "\(key)=\(scores[key]!)\n" }
            for key in highScoreEntries.keys.sorted() {
                text += "\(StateStore.tablePrefix)\(key)=\(HighScoreTable.stored(highScoreEntries[key]!))\n"
            }
        case .counters: for key in counters.keys.sorted() { text += "\(key)=\(counters[key]!)\n" }
        case .settings: for key in settings.keys.sorted() { text += "\(key)=\(settings[key]!)\n" }
        }
        return text
    }

    /// Why a value cannot be `key`'s in `file` (nil: it can). Counters are whole numbers;
    /// scores are whole numbers, and high-score tables (`HighScoreTable`) under
    /// `tablePrefix`; settings are text.
    static func valueProblem(_ file: File, key: String, value: String) -> String? {
        switch file {
        case .settings: return nil
        case .scores where key.hasPrefix(tablePrefix):
            return HighScoreTable.parseEntries(value) == nil ? "not a high-score table" : nil
        case .scores, .counters: return (Int(value) ?? -1) < 0 ? "not a whole number" : nil
        }
    }

    /// The entries of a file, or why it is corrupt.
    static func parse(_ bytes: [UInt8], file: File) -> Result<[String: String], ParseFailure> {
        parse(bytes) { valueProblem(file, key: $0, value: $1) }
    }

    /// The entries of a file whose values `problem` judges, or why it is corrupt.
    static func parse(_ bytes: [UInt8], problem: (String, String) -> String?) -> Result<[String: String], ParseFailure> {
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
            if let reason = problem(key, value) { return .failure(ParseFailure(line: number, reason: reason)) }
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

    /// The tables of a kiosk from before they moved into `scores` (a file of
    /// "2048.best.5x5=ENTRIES" lines): taken when `scores` has none, and written there
    /// with the first write.
    func loadOldTables(now: Double) {
        let filePath = path(StateStore.oldTablesName)
        guard let bytes = try? Files.readBytes(filePath) else { return }
        // Tables in `scores` already: the old file is what an interrupted move left.
        if highScoreEntries.isEmpty {
            switch StateStore.parse(bytes, problem: { StateStore.valueProblem(.scores, key: StateStore.tablePrefix + $0, value: $1) }) {
            case .success(let entries):
                highScoreEntries = entries.compactMapValues { HighScoreTable.parseEntries($0) }
                Log.info("state: the high-score tables move from \(filePath) into \(path(File.scores.rawValue))")
            case .failure(let failure):
                let aside = moveAside(filePath)
                Log.warning("state: \(filePath) is corrupt (\(failure.line.map { "line \($0): " } ?? "")\(failure.reason)); "
                    + (aside.map { "moved to \($0)" } ?? "could not move it aside") + ", its tables are lost")
                return
            }
        }
        hasOldTables = true
        markDirty(.scores, now: now)
    }

    func removeOldTables() {
        guard hasOldTables else { return }
        hasOldTables = false
        unlink(path(StateStore.oldTablesName))
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
