#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Signals read as data through signalfd(2), so SIGTERM or SIGHUP becomes one more fd
/// in the poll loop instead of a handler running at an arbitrary point.
///
/// The signals are blocked in the calling thread. Create this on the main thread before
/// starting any other thread (audio): threads inherit the mask, and a signal sent to the
/// process must find every thread blocking it, or the default action (exit) runs there.
public final class SignalFD {
    /// The signals a kiosk reacts to: end (TERM, INT), reload config (HUP), and two
    /// spare ones for service scripts (USR1, USR2).
    public static let kioskSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]

    public let fd: FileDescriptor
    public let signals: [Int32]
    private var previousMask = sigset_t()

    public init(signals: [Int32] = SignalFD.kioskSignals) throws(SystemError) {
        self.signals = signals
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals {
            if sigaddset(&mask, signal) != 0 { throw SystemError("sigaddset", "signal \(signal)") }
        }
        let maskError = pthread_sigmask(SIG_BLOCK, &mask, &previousMask)
        if maskError != 0 { throw SystemError("pthread_sigmask", "SIG_BLOCK", errno: maskError) }
        let descriptor = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        if descriptor < 0 {
            let code = errno
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
            throw SystemError("signalfd", signals.map(SignalFD.name).joined(separator: ","), errno: code)
        }
        fd = FileDescriptor(rawValue: descriptor)
    }

    /// Drains the signals pending now (numbers, in arrival order); empty when none.
    public func read() throws(SystemError) -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        while try fd.read(&info, "signalfd") {
            received.append(Int32(bitPattern: info.ssi_signo))
        }
        return received
    }

    /// "SIGTERM" for logs.
    public static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        case SIGUSR1: return "SIGUSR1"
        case SIGUSR2: return "SIGUSR2"
        case SIGQUIT: return "SIGQUIT"
        case SIGCHLD: return "SIGCHLD"
        default: return "signal \(signal)"
        }
    }

    deinit {
        // Whatever is still pending would hit its default action once unblocked: drop it.
        _ = try? read()
        fd.close()
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
}
