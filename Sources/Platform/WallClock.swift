#if canImport(Glibc)
import Glibc
#endif

/// The local calendar time (CLOCK_REALTIME in the system's time zone): the date on a
/// high-score entry, the opening hours. Frames and timers use `monotonicSeconds` instead,
/// which never jumps when the clock is set.
public struct WallClock: Equatable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    /// 0 = Sunday ... 6 = Saturday (as `tm_wday`).
    public var weekday: Int
    public var hour: Int
    public var minute: Int

    public init(year: Int, month: Int, day: Int, weekday: Int, hour: Int, minute: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.weekday = weekday
        self.hour = hour
        self.minute = minute
    }

    /// Now, in local time.
    public static func now() -> WallClock { WallClock(epochSeconds: epochSeconds()) }

    /// Seconds since 1970 (UTC): what the counters keep for a date.
    public static func epochSeconds() -> Int { Int(time(nil)) }

    /// A moment, in local time.
    public init(epochSeconds: Int) {
        var seconds = time_t(epochSeconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        self.init(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                  weekday: Int(parts.tm_wday), hour: Int(parts.tm_hour), minute: Int(parts.tm_min))
    }

    /// "2026-12-01".
    public var isoDate: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    /// "2026-12-01 09:30".
    public var isoMinute: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(isoDate) \(two(hour)):\(two(minute))"
    }

    /// Minutes since local midnight.
    public var minuteOfDay: Int { hour * 60 + minute }
}
