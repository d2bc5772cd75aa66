#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The panel backlight through sysfs (/sys/class/backlight/NAME/{brightness,max_brightness}).
/// Boards without one (HDMI monitors, the virtual board) get a backlight that does
/// nothing, announced once, so the operator menu can simply hide its slider.
public struct Backlight: Sendable {
    public static let defaultRoot = "/sys/class/backlight"
    /// Never darker than this: a black screen can't be turned back up by touch.
    public static let minimumPercent = 5

    /// The chosen device directory; nil when the board has none.
    public let device: String?
    public let maxBrightness: Int

    public var isPresent: Bool { device != nil }

    /// Picks the device the kernel documentation says to prefer: firmware (ACPI),
    /// then platform, then raw register access; by name within a kind.
    public init(root: String = Backlight.defaultRoot) {
        var best: (rank: Int, path: String, max: Int)?
        for name in Files.listDirectory(root) {
            let path = root + "/" + name
            guard let max = Backlight.readInt(path + "/max_brightness"), max > 0 else { continue }
            let kind = (try? Files.readText(path + "/type"))?.trimmed ?? "raw"
            let rank = ["firmware": 0, "platform": 1, "raw": 2][kind] ?? 3
            if best == nil || rank < best!.rank { best = (rank, path, max) }
        }
        device = best?.path
        maxBrightness = best?.max ?? 0
        if let best {
            Log.info("backlight: \(best.path) (max \(best.max))")
        } else {
            Log.notice("backlight: none under \(root); brightness control disabled")
        }
    }

    /// The current level in percent (rounded); nil without a backlight or when unreadable.
    public func percent() -> Int? {
        guard let device, let raw = Backlight.readInt(device + "/brightness") else { return nil }
        return Int((Double(raw) * 100 / Double(maxBrightness)).rounded())
    }

    /// Sets the level in percent, clamped to `minimumPercent`...100. Returns whether the
    /// kernel took it; without a backlight it is a quiet no-op.
    @discardableResult
    public func setPercent(_ percent: Int) -> Bool {
        guard let device else { return false }
        let clamped = min(100, max(Backlight.minimumPercent, percent))
        let raw = max(1, Int((Double(clamped) * Double(maxBrightness) / 100).rounded()))
        let path = device + "/brightness"
        // O_TRUNC as a shell redirect does: sysfs ignores it, a plain file (tests) needs it.
        do {
            let fd = try FileDescriptor.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            defer { fd.close() }
            try fd.writeAll(Array("\(raw)\n".utf8), path)
            return true
        } catch {
            Log.warning("backlight: \(error)")
            return false
        }
    }

    private static func readInt(_ path: String) -> Int? {
        guard let text = try? Files.readText(path) else { return nil }
        return Int(text.trimmed)
    }
}
