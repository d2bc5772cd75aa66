import CDRM
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's VT: graphics mode while running (no console text or cursor over the
/// picture), switching under our control (VT_PROCESS), text mode and automatic switching
/// restored on teardown.
///
/// The kernel asks with `releaseSignal` before switching away and tells `acquireSignal`
/// when we are back. Both must be blocked and read through the run loop's signalfd
/// BEFORE this is made: SIGUSR1's default action kills the process.
public final class VirtualTerminal {
    public static let releaseSignal: Int32 = SIGUSR1
    public static let acquireSignal: Int32 = SIGUSR2

    public let path: String
    private var fd: Int32
    private var previousKDMode: Int32 = Int32(KD_TEXT)

    public init(path: String) throws(SystemError) {
        self.path = path
        fd = try retryingEINTR("open", path) { open(path, O_RDWR | O_CLOEXEC | O_NOCTTY) }
        var mode: Int32 = 0
        if boardwalk_ioctl_pointer(fd, UInt(KDGETMODE), &mode) == 0 { previousKDMode = mode }
        do {
            try control("KDSETMODE KD_GRAPHICS", boardwalk_ioctl_value(fd, UInt(KDSETMODE), UInt(KD_GRAPHICS)))
            var vt = vt_mode()
            vt.mode = CChar(VT_PROCESS)
            vt.relsig = Int16(VirtualTerminal.releaseSignal)
            vt.acqsig = Int16(VirtualTerminal.acquireSignal)
            try control("VT_SETMODE VT_PROCESS", boardwalk_ioctl_pointer(fd, UInt(VT_SETMODE), &vt))
        } catch {
            restore()
            throw error
        }
    }

    deinit { restore() }

    private func control(_ what: String, _ result: Int32) throws(SystemError) {
        if result < 0 { throw SystemError("ioctl \(what)", path) }
    }

    /// Lets the pending switch away happen (after master is dropped).
    public func acknowledgeRelease() {
        if fd >= 0, boardwalk_ioctl_value(fd, UInt(VT_RELDISP), UInt(1)) < 0 {
            Log.warning("display: \(SystemError("ioctl VT_RELDISP", path))")
        }
    }

    /// Confirms we have the VT again.
    public func acknowledgeAcquire() {
        if fd >= 0 { _ = boardwalk_ioctl_value(fd, UInt(VT_RELDISP), UInt(VT_ACKACQ)) }
    }

    /// Text mode and automatic switching back; idempotent.
    public func restore() {
        guard fd >= 0 else { return }
        var vt = vt_mode()
        vt.mode = CChar(VT_AUTO)
        _ = boardwalk_ioctl_pointer(fd, UInt(VT_SETMODE), &vt)
        _ = boardwalk_ioctl_value(fd, UInt(KDSETMODE), UInt(previousKDMode == Int32(KD_GRAPHICS) ? KD_TEXT : previousKDMode))
        close(fd)
        fd = -1
    }
}
