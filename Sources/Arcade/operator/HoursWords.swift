/// Opening hours as the operator reads them: the config's "mon-fri 09:00-18:00, sat+sun
/// closed" becomes "Mon–Fri 09:00–18:00 · Sat & Sun closed" or "周一至周五 09:00–18:00，
/// 周六、周日 休息". The config keeps its own syntax; only the screen changes.
extension OperatorWords {
    var closed: String { t("closed", "休息") }
    var everyDay: String { t("Every day", "每天") }
    var otherDays: String { t("Other days", "其他日子") }

    func dayName(_ day: Int) -> String {
        language == .chinese ? ["周日", "周一", "周二", "周三", "周四", "周五", "周六"][day]
            : ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][day]
    }

    /// The setting in words; text that doesn't parse is shown as written.
    func hours(_ text: String) -> String {
        guard let parsed = OpeningHours(parsing: text) else { return text }
        guard parsed.days != nil else { return alwaysOpen }
        let rules = parsed.text.lowercased().split(separator: ",").map { $0.split(separator: " ").map(String.init) }
        let namesDays = rules.contains { $0.count == 2 }
        let shown = rules.map { words -> String in
            let range = words.last == "closed" ? closed : OpeningHours.range(words.last!).map(timeRange) ?? words.last!
            let days = words.count == 2 ? dayList(words[0]) : (namesDays ? otherDays : everyDay)
            return "\(days) \(range)"
        }
        return shown.joined(separator: t(" · ", "，"))
    }

    /// "mon-fri" -> "Mon–Fri" / "周一至周五"; "sat+sun" -> "Sat & Sun" / "周六、周日".
    func dayList(_ word: String) -> String {
        let parts = word.split(separator: "+").map { part -> String in
            let ends = part.split(separator: "-").compactMap { OpeningHours.dayNames.firstIndex(of: String($0)) }
            guard let first = ends.first else { return String(part) }
            guard ends.count == 2, ends[0] != ends[1] else { return dayName(first) }
            return t("\(dayName(ends[0]))–\(dayName(ends[1]))", "\(dayName(ends[0]))至\(dayName(ends[1]))")
        }
        return parts.joined(separator: t(" & ", "、"))
    }

    /// Minutes since midnight as "09:00–18:00"; an end past midnight says so.
    func timeRange(_ range: ClosedRange<Int>) -> String {
        func clock(_ m: Int) -> String {
            let h = m / 60, mm = m % 60
            return (h < 10 ? "0\(h)" : "\(h)") + ":" + (mm < 10 ? "0\(mm)" : "\(mm)")
        }
        let end = range.upperBound
        if end > 1440 { return t("\(clock(range.lowerBound))–\(clock(end - 1440)) (next day)", "\(clock(range.lowerBound))–次日\(clock(end - 1440))") }
        return "\(clock(range.lowerBound))–\(clock(end))"
    }
}
