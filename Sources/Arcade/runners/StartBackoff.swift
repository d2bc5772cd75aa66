#if canImport(Glibc)
import Glibc
#endif
import Platform

/// Slows a kiosk whose every start fails before the first frame (no screen connected, a
/// driver missing): systemd restarts it at once each time (`Restart=always`), and without
/// this it would start five times a second for as long as the fault lasts.
///
/// The count of failed starts in a row lives in the runtime directory (/run/boardwalk, RAM:
/// `RuntimeDirectoryPreserve=restart` keeps it across restarts, a reboot clears it), never
/// on the SD card. After the n-th failure in a row the process waits `delay(failures: n)`
/// before it exits: 0 for the first (a screen that was slow to appear), then 1, 2, 4... up
/// to `maximumDelay` seconds. The first frame on screen resets the count.
public struct StartBackoff {
    public static let fileName = "failed-starts"
    public static let maximumDelay = 30.0

    /// Where the count lives; nil (no runtime directory, e.g. run by hand) counts nothing.
    public let directory: String?

    public init(directory: String?) {
        self.directory = directory
    }

    /// From `$RUNTIME_DIRECTORY`, which systemd sets for `RuntimeDirectory=`.
    public static func fromEnvironment() -> StartBackoff {
        guard let value = getenv("RUNTIME_DIRECTORY") else { return StartBackoff(directory: nil) }
        // Several directories come colon-separated; ours is the first.
        let first = String(cString: value).split(separator: ":").first.map(String.init)
        return StartBackoff(directory: first)
    }

    /// Seconds to wait after the `failures`-th failed start in a row.
    public static func delay(failures: Int) -> Double {
        guard failures > 1 else { return 0 }
        let exponent = min(failures - 2, 16)
        return min(Double(1 << exponent), maximumDelay)
    }

    private var path: String? { directory.map { $0 + "/" + StartBackoff.fileName } }

    /// Failed starts in a row so far (0 when unknown or unreadable).
    public var failures: Int {
        guard let path, let text = try? Files.readText(path) else { return 0 }
        let digits = text.prefix { $0 != "\n" }
        return max(0, Int(digits) ?? 0)
    }

    /// Counts one more failed start; returns how long to wait before exiting.
    public func recordFailure() -> Double {
        let count = failures == .max ? Int.max : failures + 1
        if let path {
            do {
                try Files.writeAtomically(path, text: "\(count)\n")
            } catch {
                Log.warning("start back-off: cannot count failed starts in \(path): \(error)")
            }
        }
        return StartBackoff.delay(failures: count)
    }

    /// The kiosk is on screen: the next failure is a first one again.
    public func recordSuccess() {
        if let path, Files.exists(path) { unlink(path) }
    }

    /// Waits up to `seconds`, returning early when SIGTERM or SIGINT arrives (a stop during
    /// the wait is not held up by it). Returns the signal, or nil when the time ran out.
    @discardableResult
    public static func wait(seconds: Double) -> Int32? {
        guard seconds > 0 else { return nil }
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &set, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let deadline = monotonicSeconds() + seconds
        while true {
            let left = deadline - monotonicSeconds()
            if left <= 0 { return nil }
            var timeout = timespec(tv_sec: Int(left), tv_nsec: Int((left - Double(Int(left))) * 1e9))
            let signal = sigtimedwait(&set, nil, &timeout)
            if signal > 0 { return signal }
            if errno != EINTR { return nil }
        }
    }
}
