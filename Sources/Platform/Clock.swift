#if canImport(Glibc)
import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC: the clock of frames, input timestamps and timers.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
