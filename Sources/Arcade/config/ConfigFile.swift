// The configuration file format: `key = value` lines under `[section]` headers.

/// A problem found while reading the configuration, with where it was found.
public struct ConfigDiagnostic: Equatable, Sendable, CustomStringConvertible {
    public enum Level: Sendable { case warning, notice }
    public var level: Level
    /// A file path, or "command line".
    public var origin: String
    /// 1-based; nil for whole-file problems and command-line arguments.
    public var line: Int?
    public var message: String

    public init(_ level: Level, origin: String, line: Int? = nil, _ message: String) {
        self.level = level
        self.origin = origin
        self.line = line
        self.message = message
    }

    public var description: String {
        "\(origin)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}

/// One `key = value` assignment and where it came from.
public struct ConfigEntry: Equatable, Sendable {
    /// "section.key", lower case.
    public var key: String
    public var value: String
    public var origin: String
    public var line: Int?
}

/// Reads the `key = value` with `[sections]` format.
public enum ConfigFile {
    /// Splits a file's text into assignments; malformed lines become warnings.
    /// Only syntax is checked here: keys and values are checked when applied.
    public static func parse(_ text: String, origin: String) -> (entries: [ConfigEntry], diagnostics: [ConfigDiagnostic]) {
        var entries: [ConfigEntry] = []
        var diagnostics: [ConfigDiagnostic] = []
        var section: String?
        var number = 0
        // "\r\n" is one Character in Swift: split on both so CRLF files work.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = stripComment(String(rawLine)).trimmed
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    diagnostics.append(.init(.warning, origin: origin, line: number,
                                             "malformed section header \(quoted(line)); expected [name]"))
                    section = nil
                    continue
                }
                section = String(line.dropFirst().dropLast()).trimmed.lowercased()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                diagnostics.append(.init(.warning, origin: origin, line: number,
                                         "expected key = value, found \(quoted(line)); ignored"))
                continue
            }
            let name = String(line[..<equals]).trimmed.lowercased()
            var value = String(line[line.index(after: equals)...]).trimmed
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard !name.isEmpty else {
                diagnostics.append(.init(.warning, origin: origin, line: number, "a value without a key; ignored"))
                continue
            }
            let key: String
            if let section {
                key = section + "." + name
            } else if name.contains(".") {
                key = name
            } else {
                diagnostics.append(.init(.warning, origin: origin, line: number,
                                         "key \(quoted(name)) is outside any [section]; ignored"))
                continue
            }
            entries.append(ConfigEntry(key: key, value: value, origin: origin, line: number))
        }
        return (entries, diagnostics)
    }

    /// `#` starts a comment at the start of a line or after whitespace, so values such
    /// as colours ("#202020") written without a space still work.
    static func stripComment(_ line: String) -> String {
        var previous: Character = " "
        var inQuotes = false
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if character == "#" && !inQuotes && (previous == " " || previous == "\t") {
                return String(line[..<index])
            }
            previous = character
        }
        return line
    }

    static func quoted(_ text: String) -> String {
        "'" + (text.count > 60 ? String(text.prefix(60)) + "..." : text) + "'"
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends (CRLF files, sysfs values).
    var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
