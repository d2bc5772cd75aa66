import Graphics
import Platform
import ScreenGeometry
#if canImport(Glibc)
import Glibc
#endif

/// Puts finished frames on a screen. The UI draws into a shadow surface in logical
/// orientation (xrgb8888, `width` x `height`); the presenter copies the damaged part out,
/// rotated and converted, and shows it.
///
/// The run loop's contract:
/// - poll `pollDescriptor` (when not nil) with the other fds; when it is readable call
///   `handleReadable()` (flip completions, hotplug).
/// - draw and `present` only while `isReadyForFrame`. Damage passed while not ready is
///   kept, not lost: call `present` again once ready (empty damage will do) to show it.
///   Presenting with nothing new to show does nothing (no flip, no wake-up).
/// - when `needsFullRedraw` is true, redraw the whole shadow (re-created at `width` x
///   `height`, which may have changed) before the next `present`; presenting clears it.
/// - VT switch signals (`VirtualTerminal.releaseSignal`/`acquireSignal`, blocked and read
///   through a signalfd) go to `handleVTSignal`.
/// - `shutdown()` on exit (SIGTERM, SIGINT too): restores the screen and the text console.
public protocol Presenter: AnyObject {
    /// Logical screen size in pixels, after rotation: the size of the shadow surface.
    var width: Int { get }
    var height: Int { get }
    var rotation: Rotation { get }

    /// Copies `damage` (logical pixels) of `shadow` out and shows it.
    func present(_ shadow: Surface, damage: DamageRegion) throws(DisplayError)

    /// The fd to poll for readability, or nil when there is nothing to wait for.
    var pollDescriptor: FileDescriptor? { get }
    /// Drains what made `pollDescriptor` readable; never blocks.
    func handleReadable() throws(DisplayError)

    /// When the latest presented frame reached the screen (monotonic seconds: a page flip's
    /// vblank, a paced flip's timer, a headless present's own time); nil before the first.
    var lastShownAt: Double? { get }
    /// Seconds between the panel's vblanks when frames reach the screen on a refresh grid
    /// (a page flip's, a paced flip's); nil when a present shows at once (headless).
    var refreshInterval: Double? { get }

    /// False while a page flip is pending or the VT is switched away.
    var isReadyForFrame: Bool { get }
    /// True after a modeset, a mode size change or getting the VT back.
    var needsFullRedraw: Bool { get }

    /// Acts on SIGUSR1/SIGUSR2 from the VT (release/acquire); other signals are ignored.
    func handleVTSignal(_ signal: Int32)

    /// Restores what was on screen before and frees everything; idempotent.
    func shutdown()
}

extension Presenter {
    public var bounds: PixelRect { PixelRect(0, 0, width, height) }
}

/// What can go wrong bringing up or driving the screen. Each description is one line for
/// the journal; the kiosk exits non-zero on it and systemd restarts it.
public enum DisplayError: Error, CustomStringConvertible, Equatable, Sendable {
    case noCard(searched: String)
    case noDumbBuffers(path: String)
    case noConnectedConnector(path: String, connectors: [String])
    case permissionDenied(path: String)
    case masterHeld(path: String)
    case connectorNotFound(path: String, name: String, available: [String])
    case modeNotFound(connector: String, mode: String, available: [String])
    case noCRTC(connector: String)
    case shadowSizeMismatch(expected: String, got: String)
    case badConfig(String)
    case system(SystemError)

    public var description: String {
        switch self {
        case .noCard(let searched):
            "display: no DRM card that can show a picture (\(searched)); is the display driver loaded?"
        case .noDumbBuffers(let path):
            "display: \(path) cannot allocate dumb buffers (a render-only device?)"
        case .noConnectedConnector(let path, let connectors):
            "display: no connected display on \(path) (\(connectors.isEmpty ? "no connectors" : connectors.joined(separator: ", "))); plug in a screen or configure the connector"
        case .permissionDenied(let path):
            "display: permission denied opening \(path); run as a member of the 'video' group"
        case .masterHeld(let path):
            "display: \(path) is in use: another process (a display server, another kiosk) holds DRM master"
        case .connectorNotFound(let path, let name, let available):
            "display: connector \(name) not found on \(path) (available: \(available.joined(separator: ", ")))"
        case .modeNotFound(let connector, let mode, let available):
            "display: mode \(mode) not offered by \(connector) (offered: \(available.joined(separator: ", ")))"
        case .noCRTC(let connector):
            "display: no CRTC can drive \(connector)"
        case .shadowSizeMismatch(let expected, let got):
            "display: shadow surface is \(got), the screen is \(expected)"
        case .badConfig(let text):
            "display: \(text)"
        case .system(let error):
            "display: \(error)"
        }
    }
}

/// The display settings the board profile and command line may give; nil means "choose".
public struct DisplayConfig: Sendable, Equatable {
    /// A card node such as /dev/dri/card1; nil: the first card that can show a picture.
    public var cardPath: String?
    /// A connector name as the kernel names it ("HDMI-A-1", "DSI-1", "Virtual-1").
    public var connector: String?
    /// "1280x800" or "1280x800@60"; nil: the preferred mode, else the largest.
    public var mode: String?
    /// .xrgb8888 or .rgb565; nil: the driver's preferred depth.
    public var format: PixelFormat?
    public var rotation: Rotation
    /// The VT to own (graphics mode, switching); nil runs without one.
    public var ttyPath: String?
    /// The VT's keyboard is the kiosk's alone and switches away are refused
    /// (`VirtualTerminal.locked`); off for `display-test`, which checks VT switching.
    public var locksVT: Bool
    /// Watch for monitor hotplug and modeset again.
    public var watchHotplug: Bool

    public init(cardPath: String? = nil, connector: String? = nil, mode: String? = nil,
                format: PixelFormat? = nil, rotation: Rotation = .deg0,
                ttyPath: String? = "/dev/tty1", locksVT: Bool = false, watchHotplug: Bool = true) {
        self.cardPath = cardPath
        self.connector = connector
        self.mode = mode
        self.format = format
        self.rotation = rotation
        self.ttyPath = ttyPath
        self.locksVT = locksVT
        self.watchHotplug = watchHotplug
    }
}
