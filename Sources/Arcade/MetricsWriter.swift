#if canImport(Glibc)
import Glibc
#endif
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

    /// Writes `text()` when a minute has passed since the last try; says whether it wrote.
    /// `text` is only built when a write is due.
    @discardableResult
    func writeIfDue(now: Double, text: () -> String) -> Bool {
        if let last = lastAttempt, now - last < Self.interval { return false }
        lastAttempt = now
        do {
            try Self.writeReadable(path, text: text())
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

    /// Temp file beside the target, mode 0644 set explicitly, then rename. No fsync: the
    /// file is rewritten every minute and normally lives in RAM (/run).
    static func writeReadable(_ path: String, text: String) throws(SystemError) {
        let temp = path + ".tmp"
        let fd = try retryingEINTR("open", temp) { open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        let bytes = Array(text.utf8)
        do {
            try retryingEINTR("fchmod", temp) { fchmod(fd, 0o644) }
            var offset = 0
            while offset < bytes.count {
                offset += try retryingEINTR("write", temp) {
                    bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                }
            }
        } catch {
            close(fd)
            unlink(temp)
            throw error
        }
        close(fd)
        do {
            try retryingEINTR("rename", "\(temp) -> \(path)") { rename(temp, path) }
        } catch {
            unlink(temp)
            throw error
        }
    }
}
