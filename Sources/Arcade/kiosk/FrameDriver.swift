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
    /// What the last few paced frames cost, drawing and handing over (seconds).
    private var pacedCosts: [Double] = []

    /// Seconds between heap trims while frames are drawn (one costs well under a frame):
    /// a long game leaves holes in the heap (a drawing's scratch blocks between longer-lived
    /// ones), and handing free pages back keeps RSS at what the kiosk uses.
    static let heapTrimInterval = 30.0

    /// How many paced frames' costs set the lead before a vblank.
    static let pacedCostWindow = 16
    /// How late the loop may wake from its timer, on top of a frame's own cost.
    static let wakeMargin = 0.0015
    /// The lead before any paced frame has been timed.
    static let firstLead = 0.004

    /// The clock a frame's cost is read from (a test's own time stands in for it).
    private let clock: () -> Double

    public init(kiosk: Kiosk, presenter: Presenter, now: Double, clock: @escaping () -> Double = monotonicSeconds) {
        self.kiosk = kiosk
        self.presenter = presenter
        self.clock = clock
        lastHeapTrim = now
    }

    /// Draws what changed and presents it. `force` presents even an unchanged screen (the
    /// first frame, which tells systemd the kiosk is up). Returns whether a frame went out.
    @discardableResult
    public func drawFrame(now: Double, force: Bool = false) throws(DisplayError) -> Bool {
        let started = clock()
        let figures = kiosk.reporting.figures
        let paced = !mustDrawAtOnce
        if presenter.needsFullRedraw { kiosk.screen.invalidateAll() }
        let damage = kiosk.renderFrame(now: now)
        guard !damage.isEmpty || force else {
            figures.frameDrawn(presented: false)
            return false
        }
        try presenter.present(kiosk.screen.shadow, damage: damage)
        framesPresented += 1
        let cost = clock() - started
        figures.recordFrame(seconds: cost)
        if paced {
            if pacedCosts.count == FrameDriver.pacedCostWindow { pacedCosts.removeFirst() }
            pacedCosts.append(cost)
        }
        figures.frameDrawn(presented: true)
        noteShown()
        if now - lastHeapTrim >= FrameDriver.heapTrimInterval {
            lastHeapTrim = now
            _ = releaseFreeHeap()
        }
        return true
    }

    /// When to draw the frame the kiosk wants. One that answers an input (or repaints the
    /// whole screen) goes at once: nothing drawn later reaches the screen sooner. One that
    /// only moves the picture on goes as late before the next vblank as the last ones'
    /// cost allows: drawn straight after a flip, it would hold the screen for a period,
    /// and a finger arriving meanwhile would wait behind it for up to two.
    public func drawTime(now: Double) -> Double {
        guard !mustDrawAtOnce, let interval = presenter.refreshInterval, interval > 0,
              let shown = presenter.lastShownAt else { return now }
        let lead = (pacedCosts.max() ?? FrameDriver.firstLead) + FrameDriver.wakeMargin
        // A frame that costs most of a period has no time to wait.
        guard lead < interval * 0.75 else { return now }
        let nextVblank = shown + interval * (((now - shown) / interval).rounded(.down) + 1)
        return max(now, nextVblank - lead)
    }

    /// The wanted frame answers an input or repaints the whole screen.
    private var mustDrawAtOnce: Bool { kiosk.reporting.figures.inputAwaitsFrame || presenter.needsFullRedraw }

    /// After a present and after the presenter's flip events: a frame newly on screen
    /// ends the input-to-photon time of the input it answers.
    public func noteShown() {
        guard let shown = presenter.lastShownAt, shown != lastShown else { return }
        lastShown = shown
        kiosk.reporting.figures.frameShown(at: shown)
    }
}
