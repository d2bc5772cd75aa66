#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Text for a person at a terminal (a command's usage), as it is: not a journal line.
public func printToStandardError(_ text: String) {
    let line = text.hasSuffix("\n") ? text : text + "\n"
    _ = line.withCString { Glibc.write(2, $0, strlen($0)) }
}

/// Logs to stderr in the journal's format: one line each, a "<N>" priority prefix.
/// Written unbuffered, so journal timestamps are true. Repeats of one message are
/// rate-limited so a failing device can't flood the journal.
public enum Log {
    public enum Priority: Int, Sendable { case error = 3, warning = 4, notice = 5, info = 6, debug = 7 }

    nonisolated(unsafe) public static var minimum: Priority = .info
    /// Where lines go; tests replace it to capture them.
    nonisolated(unsafe) public static var sink: (String) -> Void = { line in
        let text = line + "\n"
        _ = text.withCString { Glibc.write(2, $0, strlen($0)) }
    }
    /// Guarded: the audio thread logs too (device lost, reopened).
    private static let lastSeen = Mutex<[String: (time: Double, suppressed: Int)]>([:])
    /// The same message is written at most once per this many seconds.
    nonisolated(unsafe) public static var repeatInterval: Double = 10

    public static func error(_ message: String) { log(.error, message) }
    public static func warning(_ message: String) { log(.warning, message) }
    public static func notice(_ message: String) { log(.notice, message) }
    public static func info(_ message: String) { log(.info, message) }
    public static func debug(_ message: String) { log(.debug, message) }

    public static func log(_ priority: Priority, _ message: String) {
        guard priority.rawValue <= minimum.rawValue else { return }
        let now = monotonicSeconds()
        let text: String? = lastSeen.withLock { seen in
            var text = message
            if let last = seen[message] {
                if now - last.time < repeatInterval {
                    seen[message] = (last.time, last.suppressed + 1)
                    return nil
                }
                if last.suppressed > 0 { text += " (repeated \(last.suppressed) more times)" }
            }
            if seen.count > 256 { seen.removeAll() }
            seen[message] = (now, 0)
            return text
        }
        guard let text else { return }
        sink("<\(priority.rawValue)>\(escapingControls(text))")
    }

    /// Control characters as `\xNN`: a device name, a file name on a stranger's stick or
    /// a line of RAUC's output can't start a journal line of its own (a forged "<0>...")
    /// or move the operator's terminal.
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
