#if canImport(Glibc)
import Glibc
#endif

/// The program's one thread of control: poll(2) over registered file descriptors, plus
/// timeouts kept in the loop itself. Nothing here is thread-safe by design; the audio
/// thread talks to the main thread through its own queue, never through the loop.
///
/// Handlers may add and remove watches and timeouts (their own included) while running;
/// a watch removed by an earlier handler in the same round is not called.
public final class EventLoop {
    /// Names one watch or timeout so it can be cancelled.
    public struct Token: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct Watch {
        let token: Int
        let fd: FileDescriptor
        var events: Int16
        let handler: (Int16) -> Void
    }

    private struct Timeout {
        let token: Int
        let deadline: Double
        let handler: () -> Void
    }

    private var watches: [Watch] = []
    private var timeouts: [Timeout] = []
    private var nextToken = 1
    private var stopRequested = false

    /// Called before every wait: the place to draw a frame when something changed, so
    /// all input read in one round is drawn once.
    public var beforeWait: (() -> Void)?

    public private(set) var isRunning = false

    public init() {}

    public var watchCount: Int { watches.count }
    public var timeoutCount: Int { timeouts.count }

    /// Calls `handler` with the returned events (POLLIN, POLLHUP, POLLERR...) whenever
    /// `fd` is ready. The loop does not own `fd`; its owner must cancel the watch before
    /// closing it (a closed fd is dropped with an error line, never polled in a spin).
    @discardableResult
    public func watch(fd: FileDescriptor, events: Int16 = Int16(POLLIN), _ handler: @escaping (Int16) -> Void)
        -> Token
    {
        let token = makeToken()
        watches.append(Watch(token: token, fd: fd, events: events, handler: handler))
        return Token(value: token)
    }

    /// Changes which events a watch waits for (e.g. POLLOUT only while output is queued).
    public func setEvents(_ events: Int16, for token: Token) {
        if let index = watches.firstIndex(where: { $0.token == token.value }) {
            watches[index].events = events
        }
    }

    /// Runs `handler` once, `seconds` from now (monotonic clock).
    @discardableResult
    public func after(_ seconds: Double, _ handler: @escaping () -> Void) -> Token {
        at(monotonicSeconds() + max(0, seconds), handler)
    }

    /// Runs `handler` once at a monotonic time (`monotonicSeconds()`).
    @discardableResult
    public func at(_ deadline: Double, _ handler: @escaping () -> Void) -> Token {
        let token = makeToken()
        // Kept sorted by deadline; a handful of entries, so insertion is cheap.
        let index = timeouts.firstIndex(where: { $0.deadline > deadline }) ?? timeouts.count
        timeouts.insert(Timeout(token: token, deadline: deadline, handler: handler), at: index)
        return Token(value: token)
    }

    /// Removes a watch or a pending timeout; unknown or spent tokens are ignored.
    public func cancel(_ token: Token) {
        watches.removeAll { $0.token == token.value }
        timeouts.removeAll { $0.token == token.value }
    }

    /// Makes `run()` return after the handler now running (if any) finishes.
    public func stop() {
        stopRequested = true
    }

    /// Runs until `stop()`. With nothing to wait for it returns instead of sleeping forever.
    public func run() throws(SystemError) {
        stopRequested = false
        isRunning = true
        defer { isRunning = false }
        while !stopRequested {
            if watches.isEmpty && timeouts.isEmpty {
                Log.warning("event loop: nothing left to wait for, stopping")
                return
            }
            try runOnce(timeout: nil)
        }
    }

    /// One round: `beforeWait`, a wait of at most `timeout` seconds (nil: until an fd is
    /// ready or the next timeout is due), then the ready handlers and the due timeouts.
    /// Returns how many handlers ran.
    @discardableResult
    public func runOnce(timeout: Double?) throws(SystemError) -> Int {
        beforeWait?()
        if stopRequested && isRunning { return 0 }

        var limit = timeout
        if let first = timeouts.first {
            let untilDue = max(0, first.deadline - monotonicSeconds())
            limit = min(limit ?? untilDue, untilDue)
        }
        let milliseconds: Int32
        if let limit {
            // Rounded up: waking a little late is harmless, waking early would spin.
            let ms = (limit * 1000).rounded(.up)
            milliseconds = ms > Double(Int32.max) ? Int32.max : Int32(max(0, ms))
        } else {
            milliseconds = -1
        }

        var fds = watches.map { pollfd(fd: $0.fd.rawValue, events: $0.events, revents: 0) }
        let tokens = watches.map(\.token)
        let ready = fds.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), milliseconds)
        }
        var ran = 0
        if ready < 0 {
            let code = errno
            // A signal arriving mid-wait: not an error, just a shorter round.
            if code != EINTR { throw SystemError("poll", "\(fds.count) fds", errno: code) }
        } else if ready > 0 {
            for (index, entry) in fds.enumerated() where entry.revents != 0 {
                guard let watch = watches.first(where: { $0.token == tokens[index] }) else { continue }
                if entry.revents & Int16(POLLNVAL) != 0 {
                    Log.error("event loop: fd \(entry.fd) was closed while watched; dropping it")
                    watches.removeAll { $0.token == watch.token }
                    continue
                }
                watch.handler(entry.revents)
                ran += 1
                if stopRequested && isRunning { return ran }
            }
        }

        let now = monotonicSeconds()
        // Only timeouts already due now run; ones they add wait for the next round.
        let due = timeouts.prefix { $0.deadline <= now }.map(\.token)
        for token in due {
            guard let index = timeouts.firstIndex(where: { $0.token == token }) else { continue }
            let entry = timeouts.remove(at: index)
            entry.handler()
            ran += 1
            if stopRequested && isRunning { return ran }
        }
        return ran
    }

    private func makeToken() -> Int {
        defer { nextToken += 1 }
        return nextToken
    }
}
