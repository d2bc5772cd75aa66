import Platform
import UI

/// One line of a high-score table.
public struct HighScoreEntry: Equatable, Sendable {
    public var score: Int
    /// Three letters A-Z.
    public var initials: String
    /// The local date it was set, "2026-12-01" (a board without a clock says 1970).
    public var date: String

    public init(score: Int, initials: String, date: String) {
        self.score = score
        self.initials = initials
        self.date = date
    }

    /// "12345:ABC:2026-12-01", the stored form of one entry.
    var stored: String { "\(score):\(initials):\(date)" }

    init?(stored: Substring) {
        let parts = stored.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let score = Int(parts[0]), score >= 0, HighScoreEntry.isValid(initials: parts[1]),
              parts[2].count == 10, parts[2].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") })
        else { return nil }
        self.init(score: score, initials: String(parts[1]), date: String(parts[2]))
    }

    static func isValid(initials: Substring) -> Bool {
        initials.utf8.count == 3 && initials.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}

/// A game variant's top ten (2048 on 5x5, Memory on 4x4...), best first. A new result that
/// ties one already there goes below it: who got there first keeps the place.
public struct HighScoreTable: Equatable, Sendable {
    public static let capacity = 10
    public let lowerIsBetter: Bool
    public private(set) var entries: [HighScoreEntry]

    public init(lowerIsBetter: Bool, entries: [HighScoreEntry] = []) {
        self.lowerIsBetter = lowerIsBetter
        self.entries = []
        for entry in entries { insert(entry) }
    }

    /// The place (0 = top) `score` would take, or nil when it doesn't make the table.
    public func rank(for score: Int) -> Int? {
        let place = entries.firstIndex { BestScore.isBetter(score, than: $0.score, lowerIsBetter: lowerIsBetter) }
            ?? entries.count
        return place < Self.capacity ? place : nil
    }

    /// Puts an entry in its place; returns the place, or nil when it didn't make it.
    @discardableResult
    public mutating func insert(_ entry: HighScoreEntry) -> Int? {
        guard let place = rank(for: entry.score) else { return nil }
        entries.insert(entry, at: place)
        if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
        return place
    }

    /// The stored form: entries joined by ",".
    static func stored(_ entries: [HighScoreEntry]) -> String { entries.map(\.stored).joined(separator: ",") }

    /// Entries from their stored form, or nil when any of it is bad (the file is then corrupt).
    static func parseEntries(_ text: String) -> [HighScoreEntry]? {
        if text.isEmpty { return [] }
        var out: [HighScoreEntry] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let entry = HighScoreEntry(stored: part) else { return nil }
            out.append(entry)
        }
        return out.count <= capacity ? out : nil
    }
}

extension StateStore {
    /// A variant's table ("2048.best.5x5": the same key as the game's best result).
    public func highScores(_ key: String, lowerIsBetter: Bool) -> HighScoreTable {
        HighScoreTable(lowerIsBetter: lowerIsBetter, entries: highScoreEntries[key] ?? [])
    }

    /// Whether `score` makes the table for `key` (checked before asking for initials).
    public func qualifiesForHighScores(_ key: String, score: Int, lowerIsBetter: Bool) -> Bool {
        StateStore.isValidKey(StateStore.tablePrefix + key) && score >= 0 && highScores(key, lowerIsBetter: lowerIsBetter).rank(for: score) != nil
    }

    /// Enters a result; returns its place (0 = top) or nil when it didn't make the table.
    @discardableResult
    public func addHighScore(_ key: String, _ entry: HighScoreEntry, lowerIsBetter: Bool,
                             now: Double = monotonicSeconds()) -> Int? {
        guard StateStore.isValidKey(StateStore.tablePrefix + key), entry.score >= 0,
              HighScoreEntry.isValid(initials: Substring(entry.initials))
        else {
            Log.warning("state: high score \(entry.score) '\(entry.initials)' for '\(key)' not kept (bad key or entry)")
            return nil
        }
        var table = highScores(key, lowerIsBetter: lowerIsBetter)
        guard let place = table.insert(entry) else { return nil }
        highScoreEntries[key] = table.entries
        markDirty(.scores, now: now)
        return place
    }

    /// The operator's "clear this table": its entries and the game's best for that variant.
    public func clearHighScores(_ key: String, now: Double = monotonicSeconds()) {
        highScoreEntries[key] = nil
        clearScore(key, now: now)
        markDirty(.scores, now: now)
    }

    /// The operator's "clear all tables": every table and every best.
    public func clearAllHighScores(now: Double = monotonicSeconds()) {
        highScoreEntries = [:]
        resetScores(now: now)
        markDirty(.scores, now: now)
    }
}
