#if canImport(Glibc)
import Glibc
#endif
import Platform

/// What the kiosk remembers across restarts, in the state directory (/var/lib/boardwalk):
///
/// - `scores`: best score per game and variant ("2048.best.5x5=12345") and each variant's
///   top ten ("top.2048.best.5x5=12345:ABC:2026-12-01,..."): a record is one file
/// - `settings`: what the operator changed, keyed like the config ("audio.volume=60"),
///   plus game options ("2048.theme=ocean")
/// - `counters`: plays per game, uptime, starts, unclean exits
/// - `running`: a marker present while the kiosk runs; found at start, it means the
///   last run ended without a clean exit (crash, watchdog kill, power cut)
///
/// Each file is `key=value` lines, written whole and atomically (temp, fsync, rename,
/// fsync the directory). Changes are coalesced: each file is written `File.delay` seconds
/// after its first unsaved change (a best rising every frame, a game's play count), or at
/// once by `flush` where it matters. A file that does not parse is renamed to
/// `NAME.corrupt-N` and started afresh; nothing here ever stops the kiosk.
///
/// A partition that cannot be written (full, remounted read-only after an ext4 error, not
/// mounted) keeps the changes in memory and is tried again every `retryDelay` seconds;
/// `isWritable` says so meanwhile (the operator's warning, the metric, and credits mode
/// refusing coins it could not record), and the first write that succeeds clears it.
public final class StateStore {
    public let directory: String
    /// Seconds from each file's first unsaved change to its write (`File.delay`; tests
    /// shorten them). An atomic write costs ~16 ms here (two fsyncs) and a page of the card.
    public var flushDelays = Dictionary(uniqueKeysWithValues: File.allCases.map { ($0, $0.delay) })
    /// After a failed write, wait this long before trying again (no retry storm).
    public var retryDelay: Double = 60

    public private(set) var scores: [String: Int] = [:]
    public private(set) var settings: [String: String] = [:]
    public private(set) var counters: [String: Int] = [:]
    /// Each variant's top ten, best first (`HighScores.swift` reads and changes them).
    var highScoreEntries: [String: [HighScoreEntry]] = [:]
    /// True when the previous run left its marker behind.
    public private(set) var previousRunCrashed = false

    /// Each changed file's write time: its first change plus its delay, or a retry.
    private var due: [File: Double] = [:]
    /// The tables' old file was read (`loadOldTables`): it goes once `scores` holds them.
    var hasOldTables = false
    private var sessionStart: Double
    private var uptimeAtStart = 0
    /// Whether the last write reached the disk: false from a failed write (or a directory
    /// that could not be made) until a write succeeds again.
    public private(set) var isWritable = true {
        didSet { if isWritable != oldValue { onWritableChange?() } }
    }
    /// Told when `isWritable` changes (the kiosk's screens and metrics follow it).
    public var onWritableChange: (() -> Void)?
    /// Why the writes stopped, for the line that says they came back.
    private var writeFailure: String?
    /// The marker is written once per run, as soon as the directory takes writes.
    private var hasMarker = false
    private var isClosed = false
    private var hasBegunRun = false
    /// The latest time a caller passed in, so deinit stays on the caller's clock.
    private var lastNow: Double
    /// The system's wall clock (epoch seconds); tests set it.
    var systemTime: () -> Int = { WallClock.epochSeconds() }
    /// The last known time when this run began, and the monotonic time then.
    private var lastKnownAtStart = 0
    private let clockBase: Double

    public static let defaultDirectory = "/var/lib/boardwalk"
    static let markerName = "running"

    /// Loads what is there (moving corrupt files aside) and notes an unclean previous exit;
    /// with `beginsRun` (the default) also `beginRun(now:)`. The live kiosk begins the run
    /// only once its first frame is on screen, so a start that fails earlier (no screen,
    /// over and over in a crash loop) writes nothing to the SD card.
    public init(directory: String = StateStore.defaultDirectory, now: Double = monotonicSeconds(),
                beginsRun: Bool = true) {
        self.directory = directory
        sessionStart = now
        lastNow = now
        clockBase = now
        for file in File.allCases { load(file) }
        loadOldTables(now: now)
        lastKnownAtStart = counters[CounterKey.lastKnownTime] ?? 0
        uptimeAtStart = counters[CounterKey.uptime] ?? 0
        previousRunCrashed = Files.exists(path(StateStore.markerName))
        if beginsRun { beginRun(now: now) }
    }

    /// Counts this start (and the previous run's crash), leaves the `running` marker and
    /// writes the counters. A directory that can't be created or written leaves the store
    /// working in memory, with one error in the log, until a retry succeeds. Once; before
    /// it, nothing is written.
    public func beginRun(now: Double = monotonicSeconds()) {
        guard !hasBegunRun, !isClosed else { return }
        hasBegunRun = true
        if previousRunCrashed {
            counters[CounterKey.crashes] = StateStore.adding(counters[CounterKey.crashes] ?? 0, 1)
            Log.notice("state: the previous run did not exit cleanly (crashes since install: \(counters[CounterKey.crashes]!))")
        }
        counters[CounterKey.starts] = StateStore.adding(counters[CounterKey.starts] ?? 0, 1)
        countLastExit(now: now)
        let system = systemTime()
        if system < lastKnownAtStart {
            Log.warning("clock: the system clock says \(WallClock(epochSeconds: system).isoMinute), before the last time this "
                + "cabinet saw (\(WallClock(epochSeconds: lastKnownAtStart).isoMinute)): the time is unknown (no RTC, no "
                + "time sync yet); high-score dates and the books count on from the last known time")
        }
        markDirty(.counters, now: now)
        // The start count and crash count matter most right after a crash loop: write now.
        flush(now: now)
    }

    /// The directory and the run's marker, before the first file of a flush.
    private func prepareDirectory() throws(SystemError) {
        guard !hasMarker else { return }
        try Files.makeDirectories(directory)
        try Files.writeAtomically(path(StateStore.markerName), text: "\(getpid())\n")
        hasMarker = true
    }

    public func path(_ name: String) -> String {
        directory + "/" + name
    }

    // MARK: Scores

    public func best(_ key: String) -> Int? {
        scores[key]
    }

    /// Stores a best the game has judged itself (`GameScene.recordBest`: fewest moves is
    /// best in Memory Match).
    public func setScore(_ key: String, _ score: Int, now: Double = monotonicSeconds()) {
        guard StateStore.isValidKey(key), score >= 0 else {
            Log.warning("state: score \(score) for '\(key)' not kept (bad key or negative)")
            return
        }
        guard scores[key] != score else { return }
        scores[key] = score
        markDirty(.scores, now: now)
    }

    /// The operator's "reset scores": all of them, or those of one game (all its variants).
    public func resetScores(game: String? = nil, now: Double = monotonicSeconds()) {
        if let game {
            scores = scores.filter { $0.key != game && !$0.key.hasPrefix(game + ".") }
        } else {
            scores = [:]
        }
        markDirty(.scores, now: now)
    }

    /// Forgets one best (the operator cleared that variant's table).
    func clearScore(_ key: String, now: Double) {
        guard scores.removeValue(forKey: key) != nil else { return }
        markDirty(.scores, now: now)
    }

    // MARK: Settings

    public func setting(_ key: String) -> String? {
        settings[key]
    }

    /// Stores an operator setting (nil removes it, so the config's value applies again).
    /// Returns false for a key or value the file format can't hold.
    @discardableResult
    public func setSetting(_ key: String, _ value: String?, now: Double = monotonicSeconds()) -> Bool {
        guard StateStore.isValidKey(key) else { return false }
        if let value {
            guard !value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else { return false }
            if settings[key] == value { return true }
            settings[key] = value
        } else {
            if settings.removeValue(forKey: key) == nil { return true }
        }
        markDirty(.settings, now: now)
        return true
    }

    /// Lays the operator's settings over the configuration. Keys the config doesn't know
    /// (game options) are left for their owners; bad values are reported, not applied; a
    /// key the operator menu never sets (a path, a device, the PIN) is refused: only root's
    /// files set those.
    public func applySettings(to target: inout Settings) -> [ConfigDiagnostic] {
        var problems: [ConfigDiagnostic] = []
        for key in settings.keys.sorted() where Settings.keys.contains(key) {
            guard Settings.operatorKeys.contains(key) else {
                problems.append(.init(.warning, origin: path(File.settings.rawValue),
                                      "\(key): not an operator setting; ignored (set it in /etc/boardwalk/boardwalk.conf)"))
                continue
            }
            let entry = ConfigEntry(key: key, value: settings[key]!, origin: path(File.settings.rawValue), line: nil)
            if let problem = Config.apply(entry, to: &target) { problems.append(problem) }
        }
        return problems
    }

    // MARK: Counters

    public func counter(_ key: String) -> Int {
        counters[key] ?? 0
    }

    public func increment(_ key: String, by amount: Int = 1, now: Double = monotonicSeconds()) {
        guard StateStore.isValidKey(key), amount > 0 else { return }
        counters[key] = StateStore.adding(counters[key] ?? 0, amount)
        markDirty(.counters, now: now)
    }

    /// Sets a counter to a value (state that is a number, such as the PIN pad's tries).
    public func setCounter(_ key: String, _ value: Int, now: Double = monotonicSeconds()) {
        guard StateStore.isValidKey(key), value >= 0, counters[key] != value else { return }
        counters[key] = value
        markDirty(.counters, now: now)
    }

    /// The operator's "reset the books": every counter but `keeping` back to zero, and the
    /// uptime counted from now.
    func resetCounters(keeping: Set<String>, now: Double) {
        counters = counters.filter { keeping.contains($0.key) }
        uptimeAtStart = 0
        sessionStart = now
        markDirty(.counters, now: now)
    }

    public func countPlay(game: String, now: Double = monotonicSeconds()) {
        increment(CounterKey.plays(game), now: now)
    }

    public func plays(game: String) -> Int {
        counters[CounterKey.plays(game)] ?? 0
    }

    /// Seconds the kiosk has run since install, this run included.
    public func totalUptime(now: Double = monotonicSeconds()) -> Int {
        let session = now - sessionStart
        return StateStore.adding(uptimeAtStart, session < 1e15 ? Int(max(0, session)) : 1_000_000_000_000_000)
    }

    /// Counters come from a file anyone with the SD card can edit: at Int.max they stay there.
    static func adding(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    public var crashes: Int { counters[CounterKey.crashes] ?? 0 }

    // MARK: The wall clock

    /// The wall-clock time as the kiosk uses it (epoch seconds): the system's, but never
    /// before the last time this cabinet saw plus the time since this run began. A Pi has
    /// no RTC: booted without time sync it may think it is 1970 (or systemd's build date),
    /// and high-score dates and the books must not run backwards. Kept in the counters
    /// whenever they are written anyway (no extra writes).
    public func wallTime(now: Double) -> Int {
        let elapsed = now - clockBase
        let floor = StateStore.adding(lastKnownAtStart, elapsed < 1e15 ? Int(max(0, elapsed)) : 1_000_000_000_000_000)
        return max(systemTime(), floor)
    }

    // MARK: Writing

    /// When the next write is due (for the loop's timer): after a failed write, the retry.
    /// Nil while nothing changed: an idle kiosk writes nothing to the SD card. The uptime
    /// rides along with the next counters write (a coin, a play, a start) and the clean
    /// exit's; a power cut loses at most the idle time since then.
    public var nextFlushDeadline: Double? {
        guard !isClosed, hasBegunRun else { return nil }
        return due.values.min()
    }

    public var hasUnsavedChanges: Bool { !due.isEmpty }

    /// Writes the files that are due; cheap to call every frame.
    public func flushIfDue(now: Double = monotonicSeconds()) {
        guard due.values.contains(where: { $0 <= now }) else { return }
        write(Set(due.compactMap { $0.value <= now ? $0.key : nil }), now: now)
    }

    /// Writes every changed file now (an operator's action, before exit).
    public func flush(now: Double = monotonicSeconds()) {
        write(Set(due.keys), now: now)
    }

    /// Writes one changed file now, the others in their time (a coin: `counters`).
    public func flush(_ file: File, now: Double = monotonicSeconds()) {
        guard due[file] != nil else { return }
        write([file], now: now)
    }

    private func write(_ files: Set<File>, now: Double) {
        // While the partition refuses writes, each try is for everything kept meanwhile.
        let files = isWritable ? files : Set(due.keys)
        lastNow = max(lastNow, now)
        // Before the run begins nothing is written; beginRun flushes what waited.
        guard hasBegunRun, !files.isEmpty else { return }
        counters[CounterKey.uptime] = totalUptime(now: now)
        if files.contains(.counters) { counters[CounterKey.lastKnownTime] = wallTime(now: now) }
        var failure: (what: String, error: SystemError)?
        do {
            try prepareDirectory()
            for file in File.allCases where files.contains(file) {
                do {
                    try Files.writeAtomically(path(file.rawValue), text: render(file))
                    due[file] = nil
                    if file == .scores { removeOldTables() }
                } catch {
                    failure = (file.rawValue, error)
                    due[file] = now + retryDelay
                }
            }
        } catch {
            failure = (directory, error)
            for file in files { due[file] = now + retryDelay }
        }
        if let failure {
            // Kept in memory and tried again: a full partition freed, or a read-only one
            // remounted, takes the writes without a restart. Said once, not every retry.
            if isWritable {
                Log.error("state: cannot write \(failure.what): \(failure.error.message); scores and settings will not be "
                    + "kept until it can be written again (kept in memory meanwhile, tried every \(Int(retryDelay)) s)")
                writeFailure = failure.error.message
            }
            isWritable = false
        } else {
            if !isWritable {
                // Names what it recovered from: two different faults in a row are two lines
                // (the journal's repeat limit would fold identical ones).
                Log.notice("state: \(directory) takes writes again (it was: \(writeFailure ?? "unknown")); "
                    + "everything kept in memory is saved")
            }
            isWritable = true
        }
    }

    /// A clean exit: save everything and remove the running marker.
    public func close(now: Double = monotonicSeconds()) {
        guard !isClosed else { return }
        // A run that never began (its start failed) leaves the card as it found it.
        guard hasBegunRun else {
            isClosed = true
            return
        }
        markDirty(.counters, now: now)
        flush(now: now)
        if isWritable && hasMarker { unlink(path(StateStore.markerName)) }
        isClosed = true
    }

    private func load(_ file: File) {
        let filePath = path(file.rawValue)
        // A temp file is what an interrupted write leaves; the real file is still whole.
        if Files.exists(filePath + ".tmp") {
            Log.info("state: removing \(filePath).tmp left by an interrupted write")
            unlink(filePath + ".tmp")
        }
        let bytes: [UInt8]
        do {
            bytes = try Files.readBytes(filePath)
        } catch {
            if error.errno != ENOENT { Log.error("state: reading \(file.rawValue): \(error); starting fresh") }
            return
        }
        switch StateStore.parse(bytes, file: file) {
        case .success(let entries):
            switch file {
            case .scores:
                for (key, value) in entries {
                    if key.hasPrefix(StateStore.tablePrefix) {
                        highScoreEntries[String(key.dropFirst(StateStore.tablePrefix.count))] = HighScoreTable.parseEntries(value)
                    } else {
                        scores[key] = Int(value)
                    }
                }
            case .counters: counters = entries.compactMapValues { Int($0) }
            case .settings: settings = entries
            }
        case .failure(let failure):
            let place = failure.line.map { "line \($0): " } ?? ""
            let aside = moveAside(filePath)
            Log.warning("state: \(filePath) is corrupt (\(place)\(failure.reason)); "
                + (aside.map { "moved to \($0)" } ?? "could not move it aside") + ", starting fresh")
            markDirty(file, now: sessionStart)
        }
    }

    func markDirty(_ file: File, now: Double) {
        lastNow = max(lastNow, now)
        if due[file] == nil { due[file] = now + (flushDelays[file] ?? file.delay) }
    }

    deinit {
        // An owner dropped without close() still saves, but leaves the marker: that run
        // did not say it ended cleanly.
        if !due.isEmpty && !isClosed { flush(now: lastNow) }
    }
}
