#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A kernel timer as a pollable fd (timerfd(2)) on CLOCK_MONOTONIC: the frame timer
/// while something animates, the idle and watchdog timers otherwise. Disarmed, it never
/// wakes the loop, which is how an idle menu costs nothing.
public final class TimerFD {
    public let fd: FileDescriptor
    /// Whether a later expiry is still to come (a fired one-shot timer is not armed).
    public private(set) var isArmed = false
    private var isPeriodic = false

    public init() throws(SystemError) {
        fd = FileDescriptor(rawValue: try retryingEINTR("timerfd_create", "CLOCK_MONOTONIC") {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        })
    }

    /// Fires `after` seconds from now, then every `interval` seconds if it is > 0.
    /// Re-arming replaces the previous setting. A zero `after` would disarm, so it is
    /// raised to one nanosecond: "now" still fires.
    public func arm(after: Double, interval: Double = 0) throws(SystemError) {
        var spec = itimerspec()
        spec.it_value = TimerFD.timespec(max(after, 1e-9))
        spec.it_interval = TimerFD.timespec(max(interval, 0))
        try retryingEINTR("timerfd_settime", "arm") { timerfd_settime(fd.rawValue, 0, &spec, nil) }
        isArmed = true
        isPeriodic = interval > 0
    }

    /// Fires at a monotonic time (`monotonicSeconds()`); a time already past fires at once.
    public func arm(at deadline: Double, interval: Double = 0) throws(SystemError) {
        var spec = itimerspec()
        spec.it_value = TimerFD.timespec(max(deadline, 1e-9))
        spec.it_interval = TimerFD.timespec(max(interval, 0))
        try retryingEINTR("timerfd_settime", "arm at") {
            timerfd_settime(fd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        }
        isArmed = true
        isPeriodic = interval > 0
    }

    public func disarm() throws(SystemError) {
        var spec = itimerspec()
        try retryingEINTR("timerfd_settime", "disarm") { timerfd_settime(fd.rawValue, 0, &spec, nil) }
        isArmed = false
        isPeriodic = false
    }

    /// Seconds until the next expiry; nil when disarmed.
    public func remaining() throws(SystemError) -> Double? {
        var spec = itimerspec()
        try retryingEINTR("timerfd_gettime", "") { timerfd_gettime(fd.rawValue, &spec) }
        let seconds = Double(spec.it_value.tv_sec) + Double(spec.it_value.tv_nsec) / 1e9
        return seconds == 0 ? nil : seconds
    }

    /// How many times the timer expired since the last read (0 when it has not), which
    /// also clears its readiness. More than 1 means the loop fell behind by that many periods.
    @discardableResult
    public func read() throws(SystemError) -> UInt64 {
        var expirations: UInt64 = 0
        guard try fd.read(&expirations, "timerfd") else { return 0 }
        if !isPeriodic { isArmed = false }
        return expirations
    }

    private static func timespec(_ seconds: Double) -> Glibc.timespec {
        let whole = seconds.rounded(.down)
        var nanoseconds = ((seconds - whole) * 1e9).rounded()
        var secs = whole
        if nanoseconds >= 1e9 { secs += 1; nanoseconds -= 1e9 }
        return Glibc.timespec(tv_sec: Int(secs), tv_nsec: Int(nanoseconds))
    }

    deinit {
        fd.close()
    }
}
