#if canImport(Glibc)
import Glibc
#endif
import Platform

/// When the cabinet is open (`kiosk.hours`): "always", "09:00-21:00", or rules per weekday
/// separated by commas: "mon-fri 09:00-21:00, sat 10:00-23:00, sun closed". A range whose
/// end is before its start runs past midnight ("18:00-02:00": the small hours belong to
/// the day it opened). Days not named are closed once any rule names days; a rule without
/// days covers every day not named elsewhere.
public struct OpeningHours: Equatable, Sendable {
    /// Per weekday (0 = Sunday), the opening ranges in minutes since midnight; nil: always.
    public let days: [[ClosedRange<Int>]]?
    /// As written, for the config and the closed card.
    public let text: String

    public static let always = OpeningHours(days: nil, text: "always")

    init(days: [[ClosedRange<Int>]]?, text: String) {
        self.days = days
        self.text = text
    }

    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Parses the setting; nil when it doesn't parse.
    public init?(parsing text: String) {
        let trimmed = text.trimmingSpaces
        if trimmed.lowercased() == "always" { self = .always; return }
        guard !trimmed.isEmpty else { return nil }
        var perDay: [[ClosedRange<Int>]?] = Array(repeating: nil, count: 7)
        var everyDay: [ClosedRange<Int>]?
        for rule in trimmed.lowercased().split(separator: ",") {
            let words = rule.split(separator: " ").map(String.init)
            guard (1...2).contains(words.count) else { return nil }
            let rangeWord = words.last!
            let ranges: [ClosedRange<Int>]
            if rangeWord == "closed" { ranges = [] } else {
                guard let range = Self.range(rangeWord) else { return nil }
                ranges = [range]
            }
            if words.count == 1 {
                everyDay = (everyDay ?? []) + ranges
                continue
            }
            guard let named = Self.dayList(words[0]) else { return nil }
            for day in named { perDay[day] = (perDay[day] ?? []) + ranges }
        }
        days = perDay.map { $0 ?? everyDay ?? [] }
        self.text = trimmed
    }

    /// "mon", "mon-fri", "sat+sun" (a range wraps: "fri-mon").
    static func dayList(_ word: String) -> [Int]? {
        var out: [Int] = []
        for part in word.split(separator: "+") {
            let ends = part.split(separator: "-").map(String.init)
            guard (1...2).contains(ends.count), let a = dayNames.firstIndex(of: ends[0]),
                  let b = dayNames.firstIndex(of: ends.last!) else { return nil }
            var d = a
            out.append(d)
            while d != b { d = (d + 1) % 7; out.append(d) }
        }
        return out
    }

    /// "09:00-21:00" -> minutes; the end may be earlier (past midnight) but not equal.
    static func range(_ word: String) -> ClosedRange<Int>? {
        let ends = word.split(separator: "-")
        guard ends.count == 2, let a = minutes(ends[0]), let b = minutes(ends[1]), a != b else { return nil }
        // Stored as start...end with end + 1440 when it runs past midnight.
        return a...(b > a ? b : b + 1440)
    }

    static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count <= 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
              (0...24).contains(h), (0...59).contains(m), h * 60 + m <= 1440 else { return nil }
        return h * 60 + m
    }

    /// Whether the cabinet is open at a local time.
    public func isOpen(at time: WallClock) -> Bool {
        guard let days else { return true }
        let minute = time.minuteOfDay
        // Today's ranges, then yesterday's that ran past midnight.
        if days[time.weekday].contains(where: { minute >= $0.lowerBound && minute < $0.upperBound }) { return true }
        let yesterday = (time.weekday + 6) % 7
        return days[yesterday].contains { $0.upperBound > 1440 && minute < $0.upperBound - 1440 }
    }
}

/// Whether the wall clock can be believed: a Pi has no RTC and boots in 1970 (or at its
/// last shutdown) until systemd-timesyncd sets it. Until then the kiosk stays open.
struct ClockTrust {
    var synchronizedFlag = "/run/systemd/timesync/synchronized"
    var rtc = "/sys/class/rtc/rtc0"

    var isTrusted: Bool { Files.exists(synchronizedFlag) || Files.exists(rtc) }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
