import Platform

/// Which system the kiosk runs on: the image's version and id (`IMAGE_VERSION`, `IMAGE_ID`
/// in /etc/os-release, which the image recipe writes; /usr/lib/os-release when /etc has
/// none) and the root slot the boot loader chose (`rauc.slot=A` on the kernel command
/// line). Logged at start, shown in the operator menu, and the metrics' build info.
/// A system that is not our image (Raspberry Pi OS, Debian with the package) has no
/// IMAGE_VERSION: there the version is the Debian package's, which debian/rules writes to
/// /usr/share/boardwalk/version.
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
    /// The Debian package's version (one line), read when os-release has no IMAGE_VERSION.
    public static let packageVersionPaths = ["/usr/share/boardwalk/version"]

    /// Reads the files (the first that can be read of each list).
    public static func read(osRelease: [String] = osReleasePaths, cmdline: [String] = cmdlinePaths,
                            packageVersion: [String] = packageVersionPaths) -> SystemVersion {
        let release = osRelease.lazy.compactMap { try? Files.readText($0) }.first.map(parseOSRelease) ?? [:]
        let slot = cmdline.lazy.compactMap { try? Files.readText($0) }.first.flatMap(slot(fromCommandLine:))
        var version = clean(release["IMAGE_VERSION"])
        if version == unknown {
            version = clean(packageVersion.lazy.compactMap { try? Files.readText($0) }.first?
                .split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init))
        }
        return SystemVersion(version: version, imageID: clean(release["IMAGE_ID"]), slot: clean(slot))
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

    /// Whether release version `candidate` comes before `running` ("2026.12.1" before
    /// "2026.12.10", "1.9~rc1" before "1.9"), compared as Debian compares versions: digit
    /// runs as numbers, the rest as text with `~` before anything. nil when either is not
    /// a release version (a commit id from a developer's build, "unknown"): no order.
    public static func isOlder(_ candidate: String, than running: String) -> Bool? {
        guard isReleaseVersion(candidate), isReleaseVersion(running) else { return nil }
        return compareVersions(candidate, running) < 0
    }

    /// Digits first, then digits, letters and `.~+-` only, with a separator after the
    /// first digit run: "2026.12.1", "3", "1.2~rc1"; not "9ccb926" or "unknown".
    static func isReleaseVersion(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, isDigit(first), bytes.count <= 64 else { return false }
        let leading = bytes.prefix(while: isDigit)
        if leading.count < bytes.count, !".~+-".utf8.contains(bytes[leading.count]) { return false }
        return bytes.allSatisfy { isDigit($0) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ".~+-".utf8.contains($0) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// dpkg's ordering of an upstream version: -1, 0 or 1.
    static func compareVersions(_ a: String, _ b: String) -> Int {
        var x = Array(a.utf8)[...], y = Array(b.utf8)[...]
        // Text: `~` sorts before everything, even the end; letters before other marks.
        func weight(_ c: UInt8?) -> Int {
            guard let c else { return 0 }
            if c == UInt8(ascii: "~") { return -1 }
            if (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) { return Int(c) }
            return Int(c) + 256
        }
        while !x.isEmpty || !y.isEmpty {
            while (x.first.map { !isDigit($0) } ?? false) || (y.first.map { !isDigit($0) } ?? false) {
                let wx = x.first.map { isDigit($0) ? 0 : weight($0) } ?? 0
                let wy = y.first.map { isDigit($0) ? 0 : weight($0) } ?? 0
                if wx != wy { return wx < wy ? -1 : 1 }
                if let c = x.first, !isDigit(c) { x = x.dropFirst() }
                if let c = y.first, !isDigit(c) { y = y.dropFirst() }
            }
            let dx = x.prefix(while: isDigit).drop(while: { $0 == 0x30 }), dy = y.prefix(while: isDigit).drop(while: { $0 == 0x30 })
            x = x.drop(while: isDigit)
            y = y.drop(while: isDigit)
            if dx.count != dy.count { return dx.count < dy.count ? -1 : 1 }
            if let i = zip(dx, dy).first(where: { $0 != $1 }) { return i.0 < i.1 ? -1 : 1 }
        }
        return 0
    }

    /// For the journal: "version 2026.12.1 (image boardwalk-qemu-x86_64), slot A".
    public var summary: String { "version \(version) (image \(imageID)), slot \(slot)" }
}
