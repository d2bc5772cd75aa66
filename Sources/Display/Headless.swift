import Graphics
import Platform
import ScreenGeometry

/// The presenter without a screen: the same copy-out (rotation, format) into a scan-out
/// surface in memory. Used by `--headless`, screenshots and tests.
public final class HeadlessPresenter: Presenter {
    public let rotation: Rotation
    public let width: Int
    public let height: Int
    /// The panel picture, as a DRM scan-out buffer would hold it.
    public let scanout: Surface
    private let copyOut: CopyOut
    public private(set) var needsFullRedraw = true
    public private(set) var framesPresented = 0
    public private(set) var lastShownAt: Double?
    /// The time a present reaches the "screen": at once, on this clock (a headless run's
    /// virtual one, or the monotonic clock).
    public var clock: () -> Double = monotonicSeconds

    /// A logical screen of `width` x `height`; the scan-out is turned by `rotation`.
    public init(width: Int, height: Int, rotation: Rotation = .deg0,
                format: PixelFormat = .xrgb8888) throws(DisplayError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw .badConfig("headless size \(width)x\(height) is out of range")
        }
        guard format == .xrgb8888 || format == .rgb565 else {
            throw .badConfig("scan-out format \(format) is not xrgb8888 or rgb565")
        }
        self.width = width
        self.height = height
        self.rotation = rotation
        let panel = rotation.swapped(width, height)
        scanout = Surface(width: panel.width, height: panel.height, format: format)
        copyOut = CopyOut(destination: scanout, rotation: rotation)
    }

    public func present(_ shadow: Surface, damage: DamageRegion) throws(DisplayError) {
        try copyOut.copy(from: shadow, region: damage)
        framesPresented += 1
        needsFullRedraw = false
        lastShownAt = clock()
    }

    public var pollDescriptor: FileDescriptor? { nil }
    public var refreshInterval: Double? { nil }
    public func handleReadable() throws(DisplayError) {}
    public var isReadyForFrame: Bool { true }
    public func handleVTSignal(_ signal: Int32) {}
    public func shutdown() {}

    /// A copy of what the panel would show now.
    public func screenshot() -> Surface { scanout.copied() }
}
