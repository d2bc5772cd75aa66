#if canImport(Glibc)
import Glibc
#endif

/// The service manager's notification protocol (sd_notify(3)) spoken directly, without
/// libsystemd: newline-separated `KEY=VALUE` assignments in one datagram to the AF_UNIX
/// socket named by $NOTIFY_SOCKET (a path, or "@name" for the abstract namespace).
///
/// A kiosk sends READY=1 after its first frame, WATCHDOG=1 from the frame loop (and from
/// a timer when nothing is drawn), STATUS= for `systemctl status`, STOPPING=1 on the way out.
public final class SystemdNotify {
    /// $NOTIFY_SOCKET as given.
    public let address: String
    /// WatchdogSec= of the unit in seconds (from $WATCHDOG_USEC); nil without a watchdog
    /// or when $WATCHDOG_PID names another process.
    public let watchdogInterval: Double?
    private let fd: FileDescriptor
    private var socketAddress = sockaddr_un()
    private var socketAddressLength: socklen_t = 0
    private var lastWatchdog: Double?

    /// Reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID. Nil when not started by a
    /// service manager that wants notifications; a malformed environment is logged once
    /// and also gives nil, so a kiosk run by hand never fails on it.
    public static func fromEnvironment() -> SystemdNotify? {
        var environment: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        do {
            return try SystemdNotify(environment: environment)
        } catch {
            Log.error("systemd notify: \(error); running without service notifications")
            return nil
        }
    }

    /// The same from a given environment (tests).
    public convenience init?(environment: [String: String], pid: Int32 = getpid())
        throws(SystemError)
    {
        guard let address = environment["NOTIFY_SOCKET"], !address.isEmpty else { return nil }
        try self.init(address: address, watchdogInterval: SystemdNotify.watchdogInterval(
            usec: environment["WATCHDOG_USEC"], pid: environment["WATCHDOG_PID"], ownPID: pid))
    }

    public init(address: String, watchdogInterval: Double? = nil) throws(SystemError) {
        self.address = address
        self.watchdogInterval = watchdogInterval
        let pathCapacity = MemoryLayout.size(ofValue: socketAddress.sun_path)
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        var bytes = Array(address.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        guard isAbstract || bytes.first == UInt8(ascii: "/") else {
            // vsock: and relative paths are not spoken here; say so instead of guessing.
            throw SystemError("NOTIFY_SOCKET", address, errno: EAFNOSUPPORT)
        }
        if isAbstract { bytes[0] = 0 }
        // A path needs room for its terminating NUL; an abstract name has none.
        guard bytes.count + (isAbstract ? 0 : 1) <= pathCapacity, bytes.count > 1 else {
            throw SystemError("NOTIFY_SOCKET", address, errno: ENAMETOOLONG)
        }
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        socketAddressLength = socklen_t(pathOffset + bytes.count + (isAbstract ? 0 : 1))
        fd = FileDescriptor(rawValue: try retryingEINTR("socket", "AF_UNIX datagram") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        })
    }

    /// Sends one message: assignments separated by newlines ("READY=1\nSTATUS=menu").
    public func send(_ message: String) throws(SystemError) {
        let bytes = Array(message.utf8)
        let length = socketAddressLength
        let sent = try withUnsafePointer(to: &socketAddress) { address throws(SystemError) in
            try address.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(SystemError) in
                try retryingEINTR("sendto", self.address) {
                    bytes.withUnsafeBytes { buffer in
                        sendto(fd.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), generic, length)
                    }
                }
            }
        }
        if sent != bytes.count { throw SystemError("sendto", "\(address) (short datagram)", errno: EMSGSIZE) }
    }

    /// READY=1, optionally with a status line.
    public func ready(status: String? = nil) throws(SystemError) {
        try send("READY=1" + SystemdNotify.statusSuffix(status))
    }

    public func status(_ text: String) throws(SystemError) {
        try send("STATUS=" + SystemdNotify.oneLine(text))
    }

    public func stopping(status: String? = nil) throws(SystemError) {
        try send("STOPPING=1" + SystemdNotify.statusSuffix(status))
    }

    /// Before re-reading the configuration (SIGHUP); send `ready()` when done.
    public func reloading() throws(SystemError) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        try send("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
    }

    /// The least time between two WATCHDOG=1 messages: a quarter of the interval, so a
    /// timer of this period (see `watchdogTimerPeriod`) keeps the gap under half of it
    /// even when a tick is skipped for being a little early.
    public var watchdogMinimumGap: Double? { watchdogInterval.map { $0 / 4 } }

    /// Arm a periodic timer with this period to feed the watchdog when no frames are drawn.
    public var watchdogTimerPeriod: Double? { watchdogInterval.map { $0 / 4 } }

    /// Sends WATCHDOG=1 unless one went out less than `watchdogMinimumGap` ago; call it
    /// every frame and from the watchdog timer. Returns whether a message was sent.
    /// Errors are logged (rate-limited), not thrown: a lost ping must not stop the frame.
    @discardableResult
    public func feedWatchdog(now: Double = monotonicSeconds()) -> Bool {
        guard let gap = watchdogMinimumGap else { return false }
        if let last = lastWatchdog, now - last < gap { return false }
        do {
            try send("WATCHDOG=1")
            lastWatchdog = now
            return true
        } catch {
            Log.warning("systemd notify: WATCHDOG=1: \(error)")
            return false
        }
    }

    /// $WATCHDOG_USEC as seconds; nil if absent, malformed or meant for another process.
    public static func watchdogInterval(usec: String?, pid: String?, ownPID: Int32) -> Double? {
        guard let usec else { return nil }
        if let pid {
            guard let target = Int32(pid), target == ownPID else { return nil }
        }
        guard let value = UInt64(usec), value > 0 else {
            Log.warning("systemd notify: ignoring WATCHDOG_USEC=\(usec) (not a positive number)")
            return nil
        }
        return Double(value) / 1e6
    }

    private static func statusSuffix(_ status: String?) -> String {
        status.map { "\nSTATUS=" + oneLine($0) } ?? ""
    }

    /// A newline would start a new assignment; a status is one line.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }

    deinit {
        fd.close()
    }
}
