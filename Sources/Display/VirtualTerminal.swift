import CLinux
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk's VT: graphics mode while running (no console text or cursor over the
/// picture), switching under our control (VT_PROCESS), text mode and automatic switching
/// restored on teardown.
///
/// When `locked`, the keyboard on this VT is ours alone: the kernel's keyboard handler is
/// off for it (`KDSKBMODE K_OFF`: no characters reach the tty, no Alt-Fn console keys; the
/// kiosk reads keys through evdev), the line discipline makes no signals of Ctrl-C, Ctrl-\
/// or Ctrl-Z (no ISIG), and a switch away that the kernel asks for (Alt-Left, `chvt`) is
/// refused. Ctrl-Alt-Del and SysRq are not VT business: the image turns them off
/// (`images/lib.sh`). Keyboard mode and termios come back on teardown; after a crash
/// systemd's `TTYReset=` puts the keyboard mode back.
///
/// The kernel asks with `releaseSignal` before switching away and tells `acquireSignal`
/// when we are back. Both must be blocked and read through the run loop's signalfd
/// BEFORE this is made: SIGUSR1's default action kills the process.
public final class VirtualTerminal {
    public static let releaseSignal: Int32 = SIGUSR1
    public static let acquireSignal: Int32 = SIGUSR2

    public let path: String
    public let locked: Bool
    /// nil once restored.
    private var fd: FileDescriptor?
    private var previousKDMode: Int32 = Int32(KD_TEXT)
    private var previousKeyboardMode: Int32?
    private var previousTermios: termios?

    public init(path: String, locked: Bool = false) throws(SystemError) {
        self.path = path
        self.locked = locked
        let fd = try FileDescriptor.open(path, O_RDWR | O_CLOEXEC | O_NOCTTY)
        self.fd = fd
        var mode: Int32 = 0
        if boardwalk_ioctl_pointer(fd.rawValue, UInt(KDGETMODE), &mode) == 0 { previousKDMode = mode }
        do {
            try control("KDSETMODE KD_GRAPHICS", boardwalk_ioctl_value(fd.rawValue, UInt(KDSETMODE), UInt(KD_GRAPHICS)))
            var vt = vt_mode()
            vt.mode = CChar(VT_PROCESS)
            vt.relsig = Int16(VirtualTerminal.releaseSignal)
            vt.acqsig = Int16(VirtualTerminal.acquireSignal)
            try control("VT_SETMODE VT_PROCESS", boardwalk_ioctl_pointer(fd.rawValue, UInt(VT_SETMODE), &vt))
            if locked { try lockKeyboard(fd) }
        } catch {
            restore()
            throw error
        }
    }

    deinit { restore() }

    private func control(_ what: String, _ result: Int32) throws(SystemError) {
        if result < 0 { throw SystemError("ioctl \(what)", path) }
    }

    private func lockKeyboard(_ fd: FileDescriptor) throws(SystemError) {
        var keyboardMode: Int32 = 0
        if boardwalk_ioctl_pointer(fd.rawValue, UInt(KDGKBMODE), &keyboardMode) == 0 { previousKeyboardMode = keyboardMode }
        try control("KDSKBMODE K_OFF", boardwalk_ioctl_value(fd.rawValue, UInt(KDSKBMODE), UInt(K_OFF)))
        var attributes = termios()
        guard tcgetattr(fd.rawValue, &attributes) == 0 else { throw SystemError("tcgetattr", path) }
        previousTermios = attributes
        attributes.c_lflag &= ~tcflag_t(ISIG | ICANON | ECHO | IEXTEN)
        attributes.c_iflag &= ~tcflag_t(IXON | BRKINT)
        guard tcsetattr(fd.rawValue, TCSANOW, &attributes) == 0 else { throw SystemError("tcsetattr", path) }
    }

    /// Answers the kernel's request to switch away: lets it happen (after master is
    /// dropped) when `allow`, otherwise the switch is cancelled and we keep the screen.
    public func answerRelease(allow: Bool) {
        if let fd, boardwalk_ioctl_value(fd.rawValue, UInt(VT_RELDISP), UInt(allow ? 1 : 0)) < 0 {
            Log.warning("display: \(SystemError("ioctl VT_RELDISP", path))")
        }
    }

    /// Confirms we have the VT again.
    public func acknowledgeAcquire() {
        if let fd { _ = boardwalk_ioctl_value(fd.rawValue, UInt(VT_RELDISP), UInt(VT_ACKACQ)) }
    }

    /// Keyboard, termios, text mode and automatic switching back; idempotent.
    public func restore() {
        guard let fd else { return }
        if var attributes = previousTermios { _ = tcsetattr(fd.rawValue, TCSANOW, &attributes) }
        if let keyboardMode = previousKeyboardMode {
            // K_OFF left by a kiosk that died before it could restore: the console's usual mode.
            let mode = keyboardMode == Int32(K_OFF) ? Int32(K_UNICODE) : keyboardMode
            _ = boardwalk_ioctl_value(fd.rawValue, UInt(KDSKBMODE), UInt(mode))
        }
        var vt = vt_mode()
        vt.mode = CChar(VT_AUTO)
        _ = boardwalk_ioctl_pointer(fd.rawValue, UInt(VT_SETMODE), &vt)
        _ = boardwalk_ioctl_value(fd.rawValue, UInt(KDSETMODE), UInt(previousKDMode == Int32(KD_GRAPHICS) ? KD_TEXT : previousKDMode))
        fd.close()
        self.fd = nil
    }
}
