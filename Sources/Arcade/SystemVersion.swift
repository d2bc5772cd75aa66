import Platform

/// Which system the kiosk runs on: the image's version and id (`IMAGE_VERSION`, `IMAGE_ID`
/// in /etc/os-release, which the image recipe writes; /usr/lib/os-release when /etc has
/// none) and the root slot the boot loader chose (`rauc.slot=A` on the kernel command
/// line). Logged at start, shown in the operator menu, and the metrics' build info.
/// Anything missing or unreadable is "unknown": a developer's machine has no slot.
public struct SystemVersion: Equatable, Sendable {
    public static let unknown = "unknown"
    public var version: String
    public var imageID: String
    public var slot: String

    public init(version: String = unknown, imageID: String = unknown, slot: String = unknown) {
        self.version = version
        self.imageID = imageID
        self.slot = slot
    }

    /// Where the kernel command line is: /proc/cmdline, and the copy boardwalk-prepare.service
    /// leaves for the boot (the kiosk's sandbox, `ProcSubset=pid`, hides /proc/cmdline).
    public static let cmdlinePaths = ["/proc/cmdline", "/run/boardwalk-boot/kernel-cmdline"]
    public static let osReleasePaths = ["/etc/os-release", "/usr/lib/os-release"]

    /// Reads the files (the first that can be read of each list).
    public static func read(osRelease: [String] = osReleasePaths, cmdline: [String] = cmdlinePaths) -> SystemVersion {
        let release = osRelease.lazy.compactMap { try? Files.readText($0) }.first.map(parseOSRelease) ?? [:]
        let slot = cmdline.lazy.compactMap { try? Files.readText($0) }.first.flatMap(slot(fromCommandLine:))
        return SystemVersion(version: clean(release["IMAGE_VERSION"]), imageID: clean(release["IMAGE_ID"]),
                             slot: clean(slot))
    }

    /// A value fit for a screen, a log line and a metrics label: printable, at most 64
    /// characters; nothing usable is "unknown".
    static func clean(_ value: String?) -> String {
        guard let value else { return unknown }
        let kept = String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(64)
            .map(Character.init)).trimmed
        return kept.isEmpty ? unknown : kept
    }

    /// os-release(5): `KEY=value` lines, values optionally in double or single quotes, with
    /// backslash escapes (\" \\ \$ \`) inside double quotes; comments and junk lines are skipped.
    static func parseOSRelease(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = String(raw).trimmed
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<eq])
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { continue }
            var value = Substring(line[line.index(after: eq)...])
            if value.hasPrefix("\""), value.count >= 2, value.hasSuffix("\"") {
                value = value.dropFirst().dropLast()
                var unescaped = "", escaping = false
                for c in value {
                    if escaping { unescaped.append(c); escaping = false } else if c == "\\" { escaping = true } else { unescaped.append(c) }
                }
                out[key] = unescaped
            } else if value.hasPrefix("'"), value.count >= 2, value.hasSuffix("'") {
                out[key] = String(value.dropFirst().dropLast())
            } else {
                out[key] = String(value)
            }
        }
        return out
    }

    /// `rauc.slot=NAME` on a kernel command line (the last one wins, as for the kernel).
    static func slot(fromCommandLine text: String) -> String? {
        var slot: String?
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) where word.hasPrefix("rauc.slot=") {
            slot = String(word.dropFirst("rauc.slot=".count))
        }
        return slot
    }

    /// For the journal: "version 2026.12.1 (image boardwalk-qemu-x86_64), slot A".
    public var summary: String { "version \(version) (image \(imageID)), slot \(slot)" }
}
