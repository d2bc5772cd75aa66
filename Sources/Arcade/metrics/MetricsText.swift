/// Prometheus' text exposition format (version 0.0.4), as the node exporter's textfile
/// collector reads it: for each metric family a `# HELP` and a `# TYPE` line, then its
/// samples, `name{label="value",...} number`. Label values escape `\`, `"` and newlines;
/// help text escapes `\` and newlines.
struct MetricsText {
    enum Kind: String { case counter, gauge, histogram, untyped }

    private(set) var text = ""
    private var families: Set<String> = []

    /// Starts a family; each name once.
    mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        precondition(Self.isValidName(name) && !families.contains(name), "metric family \(name)")
        families.insert(name)
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample of the family just started (histograms add `_bucket`, `_sum`, `_count`).
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, Double(value))
    }

    /// A whole family with one sample.
    mutating func single(_ name: String, _ kind: Kind, _ help: String, _ value: Double) {
        family(name, kind, help)
        sample(name, [], value)
    }

    /// A whole histogram family: its buckets, sum and count.
    mutating func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
        family(name, .histogram, help)
        for (bound, count) in histogram.cumulative {
            sample(name + "_bucket", [("le", Self.number(bound))], count)
        }
        sample(name + "_sum", [], histogram.sum)
        sample(name + "_count", [], histogram.count)
    }

    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n", "\r\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    static func escapeHelp(_ value: String) -> String {
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\n", "\r\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    /// Integers without a fraction, +Inf/-Inf/NaN as Prometheus spells them.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// [a-zA-Z_:][a-zA-Z0-9_:]*
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetterOrUnderscore || first == ":" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetterOrUnderscore || $0 == ":" || ("0"..."9").contains($0) }
    }
}

private extension Unicode.Scalar {
    var isASCIILetterOrUnderscore: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) || self == "_" }
}
