import Display
import Platform
import UI

/// One frame, drawn and shown the same way on a panel (`LiveRunner`) and in memory
/// (`HeadlessRunner`): a presenter that lost its picture (VT switch, new buffers) gets the
/// whole screen, otherwise only what changed. Time-driven work (idle timers, state flushes)
/// is the loop's, through `Kiosk.tick`: a frame only draws.
public final class FrameDriver {
    let kiosk: Kiosk
    let presenter: Presenter
    private(set) var framesPresented = 0
    private var lastHeapTrim: Double
    private var lastShown: Double?

    /// Seconds between heap trims while frames are drawn (one costs well under a frame):
    /// a long game leaves holes in the heap (a drawing's scratch blocks between longer-lived
    /// ones), and handing free pages back keeps RSS at what the kiosk uses.
    static let heapTrimInterval = 30.0

    public init(kiosk: Kiosk, presenter: Presenter, now: Double) {
        self.kiosk = kiosk
        self.presenter = presenter
        lastHeapTrim = now
    }

    /// Draws what changed and presents it. `force` presents even an unchanged screen (the
    /// first frame, which tells systemd the kiosk is up). Returns whether a frame went out.
    @discardableResult
    public func drawFrame(now: Double, force: Bool = false) throws(DisplayError) -> Bool {
        let started = monotonicSeconds()
        if presenter.needsFullRedraw { kiosk.screen.invalidateAll() }
        let damage = kiosk.renderFrame(now: now)
        let figures = kiosk.reporting.figures
        guard !damage.isEmpty || force else {
            figures.frameDrawn(presented: false)
            return false
        }
        try presenter.present(kiosk.screen.shadow, damage: damage)
        framesPresented += 1
        figures.recordFrame(seconds: monotonicSeconds() - started)
        figures.frameDrawn(presented: true)
        noteShown()
        if now - lastHeapTrim >= FrameDriver.heapTrimInterval {
            lastHeapTrim = now
            _ = releaseFreeHeap()
        }
        return true
    }

    /// After a present and after the presenter's flip events: a frame newly on screen
    /// ends the input-to-photon time of the input it answers.
    public func noteShown() {
        guard let shown = presenter.lastShownAt, shown != lastShown else { return }
        lastShown = shown
        kiosk.reporting.figures.frameShown(at: shown)
    }
}
