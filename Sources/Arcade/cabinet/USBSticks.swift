import Platform

/// A page that reads or writes USB sticks: the System tab (it looks for update bundles),
/// "Update from USB" and the books (Export).
protocol UsesUSBSticks: AnyObject {
    /// Whether the sticks are wanted now (the operator menu: only while the System tab shows).
    var usesUSBSticks: Bool { get }
    /// The sticks may have come or gone: look again.
    func sticksMayHaveChanged()
}

/// Sticks are mounted only while the operator asks for them, never at plug-in: while a
/// page that uses them is on screen the kiosk keeps the file `usb-wanted` in its runtime
/// directory (/run/boardwalk), and `boardwalk-usb.path` starts `boardwalk-usb.service`,
/// which mounts FAT and exFAT sticks (not the system disk) under /run/boardwalk-usb until
/// the file is gone (systemd/boardwalk-usb-sticks). The kiosk needs no privilege for it,
/// and a kiosk that stops takes the file with it (RuntimeDirectory=).
final class USBStickRequest {
    static let fileName = "usb-wanted"
    /// How often a page that uses sticks looks again while it shows (a stick mounted a
    /// moment after the page opened, or plugged in while it shows).
    static let lookInterval = 2.0

    /// The flag file; nil where no one mounts sticks on request (headless runs, tests
    /// without a directory, a kiosk outside systemd).
    let path: String?
    private(set) var isWanted = false
    /// When the page on screen looks for sticks again.
    private(set) var nextLook: Double?

    init(runtimeDirectory: String?) {
        path = runtimeDirectory.map { $0 + "/" + USBStickRequest.fileName }
        // A request a crashed run left behind: no page is open now.
        if let path { unlink(path) }
    }

    /// From `$RUNTIME_DIRECTORY`, as the start back-off's counter.
    static func fromEnvironment() -> USBStickRequest {
        USBStickRequest(runtimeDirectory: StartBackoff.fromEnvironment().directory)
    }

    /// Follows the page on screen; tells it to look again every `lookInterval` seconds.
    func follow(_ page: UsesUSBSticks?, now: Double) {
        let wanted = page?.usesUSBSticks == true
        if wanted != isWanted {
            isWanted = wanted
            nextLook = wanted ? now + USBStickRequest.lookInterval : nil
            write(wanted)
        } else if wanted, let due = nextLook, now >= due {
            nextLook = now + USBStickRequest.lookInterval
            page?.sticksMayHaveChanged()
        }
    }

    private func write(_ wanted: Bool) {
        guard let path else { return }
        if wanted {
            do {
                try Files.writeAtomically(path, bytes: Array("operator\n".utf8), durable: false)
                Log.info("usb: sticks asked for (an operator page that uses them is open)")
            } catch {
                Log.warning("usb: cannot ask for the sticks: \(error)")
            }
        } else if unlink(path) == 0 {
            Log.info("usb: sticks no longer asked for")
        }
    }
}

/// USB sticks the kiosk reads bundles from and writes its books to: mounted block devices
/// on the USB bus (`/dev/sd*`) with FAT or exFAT (what an operator's PC writes; a stranger's
/// ext4 stick can carry device nodes and setuid files), never a partition of the disk the
/// system runs from (a Pi booted from a USB disk), from /proc/self/mounts.
enum MountedSticks {
    static let fileSystems: Set<String> = ["vfat", "exfat"]

    /// Mount points of sticks in a mounts table (`/proc/self/mounts` lines).
    static func mountPoints(_ mounts: String) -> [String] {
        let entries = mounts.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count >= 3 }
        let systemDisk = entries.first { $0[1] == "/" }.flatMap { disk(ofPartition: String($0[0])) }
        var out: [String] = []
        for fields in entries {
            let device = String(fields[0])
            guard device.hasPrefix("/dev/sd"), fileSystems.contains(String(fields[2])),
                  disk(ofPartition: device) != systemDisk else { continue }
            let point = unescape(String(fields[1]))
            guard point != "/", !point.hasPrefix("/boot") else { continue }
            out.append(point)
        }
        return out
    }

    /// The disk a partition's device is on: /dev/sda1 -> sda, /dev/mmcblk0p5 -> mmcblk0,
    /// /dev/nvme0n1p2 -> nvme0n1, /dev/vda2 -> vda; nil outside /dev.
    static func disk(ofPartition device: String) -> String? {
        guard device.hasPrefix("/dev/") else { return nil }
        var name = Substring(device.dropFirst(5))
        guard !name.contains("/"), !name.isEmpty else { return nil }
        let numbered = name.hasPrefix("mmcblk") || name.hasPrefix("nvme") || name.hasPrefix("loop")
        while let last = name.last, last.isNumber { name = name.dropLast() }
        if numbered, name.last == "p" { name = name.dropLast() }
        return name.isEmpty ? nil : String(name)
    }

    /// The kernel writes spaces and tabs in mount points as \040 and \011.
    static func unescape(_ text: String) -> String {
        text.replacing("\\040", with: " ").replacing("\\011", with: "\t").replacing("\\134", with: "\\")
    }

}

#if canImport(Glibc)
import Glibc
#endif
