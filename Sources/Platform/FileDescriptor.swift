#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor: the number C calls take (`rawValue`), opened, read, written and
/// closed with the program's error conventions (`SystemError`, EINTR retried, EAGAIN as
/// "nothing now").
///
/// A value: copies name the same descriptor. Whoever opened it closes it, once (owners keep
/// it optional, or close it in `deinit`); everyone else only passes it on (the run loop
/// polls it, a presenter hands it out).
public struct FileDescriptor: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO)
    public static let standardError = FileDescriptor(rawValue: STDERR_FILENO)

    public var description: String { "fd \(rawValue)" }

    /// open(2) with EINTR retried; the error names the path. Add O_CLOEXEC to `flags`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) throws(SystemError)
        -> FileDescriptor
    {
        FileDescriptor(rawValue: try retryingEINTR("open", path) { Glibc.open(path, flags, mode) })
    }

    /// Both ends of a new pipe, close-on-exec.
    public static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        try retryingEINTR("pipe") { Glibc.pipe(&ends) }
        // pipe2(O_CLOEXEC) does this at once, but the Glibc module leaves it out.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Releases the descriptor. Called once: Linux frees the number even when close(2)
    /// reports EINTR, so a retry could close a descriptor another open just got.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// One read(2) into `buffer` from its start, EINTR retried: the byte count (0 at end of
    /// file), or nil when a non-blocking descriptor has nothing now (EAGAIN). `subject`
    /// names it in errors ("read /dev/input/event3").
    public func read(into buffer: inout [UInt8], _ subject: String = "") throws(SystemError) -> Int? {
        try retryingRead(subject) { buffer.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, $0.count) } }
    }

    /// Reads one fixed-size record (a timerfd's count, a signalfd's siginfo): false when
    /// nothing is pending or the read came short.
    public func read<Record>(_ record: inout Record, _ subject: String = "") throws(SystemError) -> Bool {
        let size = MemoryLayout<Record>.size
        let count = try retryingRead(subject) { withUnsafeMutableBytes(of: &record) { Glibc.read(rawValue, $0.baseAddress, size) } }
        return count == size
    }

    /// write(2) until every byte is out, EINTR retried. A non-blocking descriptor that
    /// fills up throws EAGAIN.
    public func writeAll(_ bytes: [UInt8], _ subject: String = "") throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try retryingEINTR("write", subject.isEmpty ? description : subject) {
                bytes.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + offset, $0.count - offset) }
            }
        }
    }

    private func retryingRead(_ subject: String, _ body: () -> Int) throws(SystemError) -> Int? {
        do {
            return try retryingEINTR("read", subject.isEmpty ? description : subject, body)
        } catch {
            if error.errno == EAGAIN || error.errno == EWOULDBLOCK { return nil }
            throw error
        }
    }
}
