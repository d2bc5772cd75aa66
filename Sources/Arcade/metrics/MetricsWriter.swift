import Platform

/// Writes the kiosk's metrics file (`boardwalk.prom`) for the node exporter's textfile
/// collector: at most once a minute, from the kiosk's tick (never from a frame), whole
/// (a temporary file in the same directory renamed over the old one, so a scrape never
/// reads half a file; the collector reads only `*.prom`, not the temporary file), readable
/// by the exporter's user (0644, whatever the kiosk's umask). A directory it cannot write
/// is one clear log line, not one a minute, and never stops the kiosk.
final class MetricsWriter {
    static let interval = 60.0
    static let fileName = "boardwalk.prom"

    let directory: String
    var path: String { directory + "/" + Self.fileName }
    /// When it last tried (written or not); nil before the first try.
    private(set) var lastAttempt: Double?
    private(set) var writes = 0
    /// The last failure said in the log (the same one is not said again).
    private(set) var lastProblem: String?

    init(directory: String) {
        self.directory = directory
    }

    /// When the next write is due, for the loop's timer.
    var nextDeadline: Double { (lastAttempt ?? -Double.infinity) + Self.interval }

    /// Makes the next `writeIfDue` write, whatever the minute: news a scrape should have now.
    func writeAtNextTry() { lastAttempt = nil }

    /// Writes `text()` when a minute has passed since the last try; says whether it wrote.
    /// `text` is only built when a write is due.
    @discardableResult
    func writeIfDue(now: Double, text: () -> String) -> Bool {
        if let last = lastAttempt, now - last < Self.interval { return false }
        lastAttempt = now
        do {
            // No fsync: the file is rewritten every minute and normally lives in RAM (/run).
            try Files.writeAtomically(path, bytes: Array(text().utf8), mode: 0o644, durable: false, exactMode: true)
        } catch {
            let problem = error.message
            if problem != lastProblem {
                Log.warning("metrics: cannot write \(path): \(problem); the fleet's scrape misses this cabinet's figures until it can (trying again every minute)")
                lastProblem = problem
            }
            return false
        }
        if lastProblem != nil {
            Log.notice("metrics: writing \(path) again")
            lastProblem = nil
        } else if writes == 0 {
            Log.info("metrics: writing \(path) every minute")
        }
        writes += 1
        return true
    }

    /// The activity file: one gauge, `boardwalk_activity{state}`, rewritten the moment the
    /// state changes (not once a minute): the fleet's reboot after an update waits for
    /// "idle" or "closed" in it (`images/fleet/boardwalk-fleet-reboot`), and a scrape sees it.
    static let activityFileName = "boardwalk-activity.prom"
    var activityPath: String { directory + "/" + Self.activityFileName }
    private(set) var writtenActivity: String?
    /// A failed write is tried again no sooner than this.
    private var activityRetryAt = -Double.infinity

    func writeActivity(_ state: String, now: Double) {
        guard state != writtenActivity, now >= activityRetryAt else { return }
        var m = MetricsText()
        m.family("boardwalk_activity", .gauge,
                 "What the cabinet is doing: play (someone at it), idle (the attract mode, or the menu untouched for 2 minutes), closed (outside the opening hours), service (the operator menu).")
        m.sample("boardwalk_activity", [("state", state)], 1)
        do {
            try Files.writeAtomically(activityPath, bytes: Array(m.text.utf8), mode: 0o644, durable: false, exactMode: true)
            writtenActivity = state
        } catch {
            activityRetryAt = now + Self.interval  // the metrics file's write says why, once
        }
    }
}
