#if canImport(Glibc)
import Glibc
#endif
import Platform
import UI

/// The operator's books, from the state store's counters: plays, play time and average
/// game length per game, coins and credits, uptime, starts, crashes, watchdog restarts and
/// when they were last reset. Read on the operator's page, printed by
/// `boardwalk bookkeeping [--csv]`, and written as CSV to a USB stick.
public struct Bookkeeping: Equatable {
    public struct Row: Equatable, Sendable {
        /// A stable name for spreadsheets: "plays", "coins", "average_game_seconds".
        public var item: String
        /// The game's id, or "" for the whole cabinet.
        public var game: String
        public var value: Int
    }

    public let counters: [String: Int]
    public let games: [String]

    /// Why the books could not be read or written, in words for the operator.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public init(counters: [String: Int], games: [String]) {
        self.counters = counters
        self.games = games
    }

    /// Counter keys (state store `counters`).
    static func plays(_ game: String) -> String { CounterKey.plays(game) }
    static func playTime(_ game: String) -> String { CounterKey.playTime(game) }
    static let resetAt = "bookkeeping.reset_at"
    static let watchdogRestarts = "watchdog_restarts"
    /// What a reset keeps: the credit meter is the players' money, not the books; the
    /// last known time is the clock's, not the books'.
    static let keptByReset: Set<String> = [CounterKey.creditBalance, CounterKey.coinsPending, CounterKey.lastKnownTime]

    private func value(_ key: String) -> Int { counters[key] ?? 0 }

    public var rows: [Row] {
        var rows: [Row] = []
        for game in games {
            let plays = value(CounterKey.plays(game)), seconds = value(CounterKey.playTime(game))
            rows.append(Row(item: "plays", game: game, value: plays))
            rows.append(Row(item: "play_time_seconds", game: game, value: seconds))
            rows.append(Row(item: "average_game_seconds", game: game, value: Self.roundedAverage(seconds, over: plays)))
        }
        for (item, key) in [("coins", CounterKey.coins), ("credits_bought", CounterKey.creditsBought),
                            ("credits_used", CounterKey.creditsUsed), ("credits_left", CounterKey.creditBalance),
                            ("uptime_seconds", CounterKey.uptime), ("starts", CounterKey.starts), ("crashes", CounterKey.crashes),
                            ("watchdog_restarts", CounterKey.watchdogRestarts), ("last_reset", CounterKey.booksResetAt)] {
            rows.append(Row(item: item, game: "", value: value(key)))
        }
        return rows
    }

    /// `total / count` rounded to the nearest whole number, without overflowing at any
    /// counter value (counters come from a file anyone with the card can edit).
    static func roundedAverage(_ total: Int, over count: Int) -> Int {
        guard count > 0, total >= 0 else { return 0 }
        let remainder = total % count
        return total / count + (remainder >= count - remainder ? 1 : 0)
    }

    /// Dates (epoch seconds) as local time; 0 is "never".
    static func dateText(_ epoch: Int) -> String { epoch > 0 ? WallClock(epochSeconds: epoch).isoMinute : "never" }

    /// One header line, then item,game,value; dates as "2026-12-01 09:30".
    public func csv(exportedAt epoch: Int) -> String {
        var text = "item,game,value\n"
        for row in rows {
            let value = row.item == "last_reset" ? Self.dateText(row.value) : String(row.value)
            text += "\(row.item),\(row.game),\(value)\n"
        }
        text += "exported,,\(Self.dateText(epoch))\n"
        return text
    }

    /// The books as they stand on disk, without touching them (a running kiosk keeps
    /// writing; this reads its last write). A new cabinet, whose kiosk has written no
    /// counters yet, has zero books; an unreadable or corrupt file is a problem.
    public static func read(stateDirectory: String, games: [String]) -> Result<Bookkeeping, Problem> {
        let bytes: [UInt8]
        do { bytes = try Files.readBytes(stateDirectory + "/" + StateStore.File.counters.rawValue) } catch {
            if error.errno == ENOENT && Files.isDirectory(stateDirectory) {
                return .success(Bookkeeping(counters: [:], games: games))
            }
            return .failure(Problem(description: "\(error)"))
        }
        switch StateStore.parse(bytes, file: .counters) {
        case .success(let entries):
            return .success(Bookkeeping(counters: entries.compactMapValues { Int($0) }, games: games))
        case .failure(let failure):
            return .failure(Problem(description: "\(stateDirectory)/counters is corrupt (\(failure.reason))"))
        }
    }
}

extension StateStore {
    /// The books now (uptime included up to `now`).
    func bookkeeping(games: [String], now: Double) -> Bookkeeping {
        var all = counters
        all["uptime_seconds"] = totalUptime(now: now)
        return Bookkeeping(counters: all, games: games)
    }

    /// Zeroes the books (not the credits players have), noting when; written at once.
    func resetBookkeeping(now: Double, epoch: Int? = nil) {
        let epoch = epoch ?? wallTime(now: now)
        resetCounters(keeping: Bookkeeping.keptByReset, now: now)
        setCounter(CounterKey.booksResetAt, epoch, now: now)
        flush(now: now)
    }

    /// The unit's ExecStopPost leaves `last-exit` naming why the last run ended
    /// (`result=$SERVICE_RESULT`); a watchdog kill is counted (it is a crash as well: it left
    /// the marker).
    func countLastExit(now: Double) {
        let path = self.path(Bookkeeping.lastExitName)
        // Counted once: a file that cannot be removed (read-only state) is left for a later run.
        guard let text = try? Files.readText(path), unlink(path) == 0 else { return }
        if text.split(separator: "\n").contains("result=watchdog") {
            increment(CounterKey.watchdogRestarts, now: now)
            Log.notice("state: the previous run was stopped by the watchdog")
        }
    }
}

extension Bookkeeping {
    static let lastExitName = "last-exit"

    /// `boardwalk bookkeeping [--csv] [--state-dir DIR]`.
    static func commandMain(_ arguments: [String], games: [String]) -> Int32 {
        var directory = StateStore.defaultDirectory
        var csv = false
        var rest = arguments[...]
        while let a = rest.popFirst() {
            switch a {
            case "--csv": csv = true
            case "--state-dir":
                guard let d = rest.popFirst() else { Log.error("bookkeeping: --state-dir needs a directory"); return 2 }
                directory = d
            default:
                Log.error("bookkeeping: unknown argument \(a) (usage: boardwalk bookkeeping [--csv] [--state-dir DIR])")
                return 2
            }
        }
        switch read(stateDirectory: directory, games: games) {
        case .failure(let error):
            Log.error("bookkeeping: \(error)")
            return 1
        case .success(let books):
            if csv {
                print(books.csv(exportedAt: WallClock.epochSeconds()), terminator: "")
            } else {
                for row in books.rows {
                    let value = row.item == "last_reset" ? dateText(row.value) : String(row.value)
                    print((row.game.isEmpty ? row.item : "\(row.game) \(row.item)") + ": " + value)
                }
            }
            return 0
        }
    }
}

extension Bookkeeping {
    /// Writes the books to the first stick; the file's path, or why not.
    static func exportToStick(_ csv: String, mounts: String, epoch: Int) -> Result<String, Bookkeeping.Problem> {
        guard let point = MountedSticks.mountPoints(mounts).first else {
            return .failure(Bookkeeping.Problem(description: "no USB stick is mounted"))
        }
        let time = WallClock(epochSeconds: epoch)
        let stamp = time.isoMinute.replacing(" ", with: "-").replacing(":", with: "")
        let path = "\(point)/boardwalk-bookkeeping-\(stamp).csv"
        do {
            try Files.writeAtomically(path, text: csv)
            return .success(path)
        } catch {
            return .failure(Bookkeeping.Problem(description: "\(path): \(error.message)"))
        }
    }
}
