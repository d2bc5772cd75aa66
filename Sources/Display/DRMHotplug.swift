import CLinux
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's uevent netlink socket, listened to for DRM hotplug: a "change" event of
/// the drm subsystem with HOTPLUG=1 (a monitor plugged, unplugged or power-cycled).
public final class DRMHotplug {
    public let fileDescriptor: FileDescriptor

    public init() throws(SystemError) {
        let fd = FileDescriptor(rawValue: try retryingEINTR("socket", "NETLINK_KOBJECT_UEVENT") {
            socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                   NETLINK_KOBJECT_UEVENT)
        })
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = 1  // the kernel's own broadcast (udev re-sends on group 2)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        if result < 0 {
            let error = SystemError("bind", "NETLINK_KOBJECT_UEVENT")
            fd.close()
            throw error
        }
        fileDescriptor = fd
    }

    deinit { fileDescriptor.close() }

    /// Reads every queued uevent; true if one was a DRM hotplug.
    public func drain() -> Bool {
        var found = false
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            var sender = sockaddr_nl()
            var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(self.fileDescriptor.rawValue, bytes.baseAddress, bytes.count, 0, $0, &length)
                    }
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                break  // EAGAIN: drained; ENOBUFS: overrun, treated as drained (we re-probe anyway)
            }
            // Only the kernel (port 0) speaks on this group.
            if sender.nl_pid == 0, DRMHotplug.isDRMHotplug(buffer[0..<count]) { found = true }
        }
        return found
    }

    /// A uevent is "ACTION@DEVPATH\0KEY=VALUE\0...": a DRM hotplug has ACTION=change,
    /// SUBSYSTEM=drm and HOTPLUG=1. A synthetic change (SYNTH_UUID, from `udevadm trigger
    /// -c change` or writing "change" to the card's uevent file) counts too: it is how an
    /// operator or a test asks for a re-probe on drivers that do not poll their outputs
    /// (virtio-gpu sends nothing when a connector's status is forced through sysfs).
    public static func isDRMHotplug<C: Collection>(_ message: C) -> Bool where C.Element == UInt8 {
        var action = false, drm = false, hotplug = false
        for field in message.split(separator: 0) {
            let text = String(decoding: field, as: UTF8.self)
            switch text {
            case "ACTION=change": action = true
            case "SUBSYSTEM=drm": drm = true
            case "HOTPLUG=1": hotplug = true
            default: if text.hasPrefix("SYNTH_UUID=") { hotplug = true }
            }
        }
        return action && drm && hotplug
    }
}
