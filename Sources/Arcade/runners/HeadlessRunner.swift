import Audio
import Display
import Graphics
import Input
import Platform
import UI

/// `boardwalk --headless`: the real kiosk and scenes on a screen in memory, driven by a
/// script on a virtual clock (60 frames a second, as fast as the machine goes), writing
/// screenshots of exactly what a panel would show (rotation and format applied).
public final class HeadlessRunner {
    public let kiosk: Kiosk
    public let presenter: HeadlessPresenter
    public let sound: RecordingSoundBoard
    public private(set) var now: Double = 1
    /// Virtual time between frames: 60 Hz like a panel; tests may take bigger steps
    /// (game rules run in fixed steps, so the outcome is the same).
    public var frameInterval = HeadlessRunner.panelFrameInterval
    /// A 60 Hz panel's frame.
    public static let panelFrameInterval = 1.0 / 60
    private var nextTouchID = 1
    private var frames: FrameDriver!
    public var framesDrawn: Int { frames.framesPresented }

    /// The PIN `data/scripts/tour.script` types (1234), for headless runs with no PIN set.
    public static let tourPIN = PINHash(pin: "1234", salt: Array("boardwalk-headless-tour".utf8), iterations: 1000)

    public init(settings: Settings, width: Int, height: Int, store: StateStore,
                catalog: GameCatalog = .standard) throws(DisplayError) {
        let rotation = settings.display.rotation
        let logical = rotation.swapped(width, height)
        presenter = try HeadlessPresenter(width: logical.width, height: logical.height, rotation: rotation,
                                          format: settings.display.format ?? .xrgb8888)
        sound = RecordingSoundBoard()
        let screen = Screen(width: presenter.width, height: presenter.height)
        kiosk = Kiosk(screen: screen, settings: settings, store: store, sound: sound, catalog: catalog, now: now)
        frames = FrameDriver(kiosk: kiosk, presenter: presenter, now: now)
        // A headless frame is on "screen" at the run's own time.
        presenter.clock = { [unowned self] in self.now }
        frame()
    }

    /// What the loop does at the current time: the kiosk's timers, then a frame.
    public func frame() {
        kiosk.tick(now: now)
        do {
            try frames.drawFrame(now: now)
        } catch {
            // Memory presenters don't fail; if one ever does, the script goes on.
            Log.error("headless frame: \(error)")
        }
    }

    /// Lets `seconds` of virtual time pass, a frame every `step` (1/60 s; long soaks
    /// draw less often to cover hours).
    public func advance(_ seconds: Double, step: Double? = nil) {
        let step = step ?? frameInterval
        let end = now + seconds
        while now + step <= end + 1e-9 {
            now += step
            frame()
        }
        if end > now { now = end; frame() }
    }

    private func pixels(_ x: Double, _ y: Double) -> (Double, Double) {
        (x * kiosk.screen.scale, y * kiosk.screen.scale)
    }

    private func touch(_ phase: TouchPhase, _ id: Int, _ x: Double, _ y: Double) {
        let (px, py) = pixels(x, y)
        kiosk.handle(.touch(TouchEvent(phase: phase, id: id, x: px, y: py, time: now)), now: now)
    }

    private func newID() -> Int {
        nextTouchID += 1
        return nextTouchID
    }

    public func tap(_ points: [(Double, Double)]) {
        let ids = points.map { _ in newID() }
        for (id, p) in zip(ids, points) { touch(.down, id, p.0, p.1) }
        advance(0.08)
        for (id, p) in zip(ids, points) { touch(.up, id, p.0, p.1) }
        advance(frameInterval)
    }

    public func hold(_ x: Double, _ y: Double, seconds: Double) {
        let id = newID()
        touch(.down, id, x, y)
        advance(seconds)
        touch(.up, id, x, y)
        advance(frameInterval)
    }

    public func swipe(from: (Double, Double), to: (Double, Double), seconds: Double) {
        let id = newID()
        touch(.down, id, from.0, from.1)
        let steps = max(2, Int(seconds / frameInterval))
        for i in 1...steps {
            let t = Double(i) / Double(steps)
            advance(seconds / Double(steps))
            touch(.move, id, from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t)
        }
        touch(.up, id, to.0, to.1)
        advance(frameInterval)
    }

    public func key(_ name: String) {
        guard let key = Key(rawValue: name) else { return }
        kiosk.handle(.key(KeyEvent(key: key, isPressed: true, time: now)), now: now)
        advance(frameInterval)
        kiosk.handle(.key(KeyEvent(key: key, isPressed: false, time: now)), now: now)
        advance(frameInterval)
    }

    /// What the panel shows now.
    public func screenshot() -> Surface { presenter.screenshot() }

    /// Plays a whole script, writing `shot` commands as PNGs into `shotsDirectory`.
    public func run(_ script: HeadlessScript, shotsDirectory: String) throws(ImageError) {
        for (_, command) in script.commands {
            switch command {
            case .wait(let s): advance(s)
            case .tap(let points): tap(points)
            case .hold(let x, let y, let s): hold(x, y, seconds: s)
            case .swipe(let fx, let fy, let tx, let ty, let s): swipe(from: (fx, fy), to: (tx, ty), seconds: s)
            case .key(let name): key(name)
            case .shot(let name):
                frame()
                try screenshot().writePNG("\(shotsDirectory)/\(name).png")
            }
        }
    }
}
