import Graphics
import Platform
import ScreenGeometry

/// The DRM presenter's timing without a screen: frames are copied out into memory (a
/// HeadlessPresenter) and each one "flips" at the next vblank of a steady refresh (a grid
/// of periods from the presenter's start), signalled on a timerfd the run loop polls as it
/// polls the DRM fd for page-flip events. `boardwalk --offscreen`
/// runs the live kiosk on it, where there is no display: same loop, same wake-ups.
public final class PacedPresenter: Presenter {
    public let memory: HeadlessPresenter
    public let refreshRate: Double
    private let vblank: TimerFD
    private var flipPending = false
    private var pendingDamage = DamageRegion()
    private var isShutDown = false
    public private(set) var flips = 0
    public private(set) var lastShownAt: Double?
    /// The first vblank of the grid, and the one the pending flip waits for.
    private let firstVblank = monotonicSeconds()
    private var pendingVblank = 0.0

    public init(width: Int, height: Int, rotation: Rotation = .deg0, refreshRate: Double = 60) throws(DisplayError) {
        guard refreshRate >= 1, refreshRate <= 1000 else {
            throw .badConfig("refresh rate \(refreshRate) Hz is out of range")
        }
        memory = try HeadlessPresenter(width: width, height: height, rotation: rotation)
        self.refreshRate = refreshRate
        do { vblank = try TimerFD() } catch { throw .system(error) }
    }

    public var width: Int { memory.width }
    public var height: Int { memory.height }
    public var rotation: Rotation { memory.rotation }
    public var needsFullRedraw: Bool { memory.needsFullRedraw }
    public var isReadyForFrame: Bool { !flipPending && !isShutDown }
    public var pollDescriptor: FileDescriptor? { vblank.fd }
    public var refreshInterval: Double? { 1 / refreshRate }

    public func present(_ shadow: Surface, damage: DamageRegion) throws(DisplayError) {
        guard shadow.width == width, shadow.height == height else {
            throw .shadowSizeMismatch(expected: "\(width)x\(height)", got: "\(shadow.width)x\(shadow.height)")
        }
        var damage = damage
        damage.clip(to: bounds)
        pendingDamage.add(damage)
        // As on DRM: damage given while a flip is pending waits; nothing new, no flip.
        guard isReadyForFrame, !pendingDamage.isEmpty || memory.needsFullRedraw else { return }
        try memory.present(shadow, damage: memory.needsFullRedraw ? DamageRegion(bounds) : pendingDamage)
        pendingDamage.removeAll()
        // The next vblank after now, as a panel's would be: a frame drawn just after one
        // waits almost a period, one drawn just before it hardly at all.
        let period = 1 / refreshRate, now = monotonicSeconds()
        pendingVblank = firstVblank + period * ((now - firstVblank) / period).rounded(.down) + period
        do { try vblank.arm(after: max(pendingVblank - now, 1e-6)) } catch { throw .system(error) }
        flipPending = true
    }

    /// The "page flip" completed: the next frame may be drawn.
    public func handleReadable() throws(DisplayError) {
        guard flipPending else { return }
        do { _ = try vblank.read() } catch { throw .system(error) }
        flipPending = false
        flips += 1
        lastShownAt = pendingVblank
    }

    public func handleVTSignal(_ signal: Int32) {}

    public func shutdown() {
        isShutDown = true
        try? vblank.disarm()
    }
}
