import Audio
import Graphics
import Input
import UI
import XCTest

/// Drives a scene the way the kiosk does: pixels in, frames out, time passed in. Game
/// tests build their scene from a `GameContext` with a recording sound board and memory
/// storage; toolkit tests hand in any scene.
public final class SceneHarness<S: Scene> {
    public let screen: Screen
    public let scene: S
    public let sound: RecordingSoundBoard
    public let storage: MemoryStorage
    public var now: Double
    /// Frames per second of the simulated display; low keeps debug-build tests quick.
    public var fps = 20.0
    private var touchID = 1

    /// A game scene made from a context: the same world the kiosk gives it.
    public init(width: Int = 800, height: Int = 480, storage: MemoryStorage = MemoryStorage(),
                language: Language = .english, seed: UInt64 = 1, dataDirectory: String = "/nonexistent",
                now: Double = 100, make: (GameContext) -> S) {
        let sound = RecordingSoundBoard()
        self.sound = sound
        self.storage = storage
        self.now = now
        screen = Screen(width: width, height: height)
        scene = make(GameContext(sound: sound, storage: storage, language: language, seed: seed,
                                 dataDirectory: dataDirectory))
        screen.show(scene, now: now)
        screen.renderFrame(now: now)
    }

    /// A game's scene made by its descriptor, as the kiosk makes it.
    public convenience init(game: GameDescriptor, width: Int = 800, height: Int = 480,
                            storage: MemoryStorage = MemoryStorage(), language: Language = .english,
                            seed: UInt64 = 1, dataDirectory: String = "/nonexistent", now: Double = 100) {
        self.init(width: width, height: height, storage: storage, language: language, seed: seed,
                  dataDirectory: dataDirectory, now: now) { context in
            guard let scene = game.makeScene(context) as? S else { preconditionFailure("\(game.id) makes another scene") }
            return scene
        }
    }

    /// Any scene, already made.
    public init(width: Int = 800, height: Int = 480, scene: S, now: Double = 100) {
        sound = RecordingSoundBoard()
        storage = MemoryStorage()
        self.now = now
        self.scene = scene
        screen = Screen(width: width, height: height)
        screen.show(scene, now: now)
        screen.renderFrame(now: now)
    }

    /// Renders frames for `seconds` at `fps` (this once, or the harness's rate).
    public func run(seconds: Double, fps: Double? = nil) {
        let rate = fps ?? self.fps
        for _ in 0..<Int((seconds * rate).rounded()) {
            now += 1 / rate
            screen.renderFrame(now: now)
        }
    }

    /// Added to every `check` name ("800x480-en"), for tests that play one script at
    /// several sizes and languages.
    public var shotSuffix = ""

    /// The screen as it is now against References/NAME[-suffix].png beside the calling test.
    public func check(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        assertMatchesReference(screen.shadow, shotSuffix.isEmpty ? name : "\(name)-\(shotSuffix)", file: file, line: line)
    }

    /// How a tap takes its time unless told: `hold` seconds of frames between finger down
    /// and up (0: lifted 30 ms later with no frame between), then `settle` seconds of frames.
    public var tapHold = 0.05
    public var tapSettle = 0.05

    /// A finger down on `point` (scene points) and lifted (see `tapHold`, `tapSettle`).
    public func tap(_ point: Point, hold: Double? = nil, settle: Double? = nil) {
        let hold = hold ?? tapHold, settle = settle ?? tapSettle
        let x = point.x * screen.scale, y = point.y * screen.scale
        touchID += 1
        screen.handle(.touch(TouchEvent(phase: .down, id: touchID, x: x, y: y, time: now)))
        if hold > 0 { run(seconds: hold) }
        screen.handle(.touch(TouchEvent(phase: .up, id: touchID, x: x, y: y, time: hold > 0 ? now : now + 0.03)))
        if settle > 0 { run(seconds: settle) }
    }

    public func tap(_ view: View, hold: Double? = nil, settle: Double? = nil) {
        tap(view.rectInRoot.center, hold: hold, settle: settle)
    }

    /// A finger drawn `reach` points from `start`, as the kiosk sees it: touch events in
    /// pixels go to the screen, whose swipe recognizer reaches `handleSwipe`. No frames pass, so a swipe can land in the middle of an animation.
    public func swipe(_ direction: SwipeDirection, from start: Point, reach: Double = 90) {
        let (dx, dy): (Double, Double) = switch direction {
        case .left: (-reach, 0)
        case .right: (reach, 0)
        case .up: (0, -reach)
        case .down: (0, reach)
        }
        touchID += 1
        for step in 0...4 {
            let t = Double(step) / 4
            let phase: TouchPhase = step == 0 ? .down : step == 4 ? .up : .move
            let event = TouchEvent(phase: phase, id: touchID, x: (start.x + dx * t) * screen.scale,
                                   y: (start.y + dy * t) * screen.scale, time: now + 0.03 * t)
            screen.handle(.touch(event))
        }
    }

    /// A key pressed and released.
    public func key(_ key: Key) {
        screen.handle(.key(KeyEvent(key: key, isPressed: true, time: now)))
        screen.handle(.key(KeyEvent(key: key, isPressed: false, time: now)))
    }

    /// The visible button with this title, topmost first (a dialog's button wins over the
    /// page behind it).
    public func button(titled title: String) -> Button? {
        func find(_ view: View) -> Button? {
            if let b = view as? Button, b.title == title, b.isVisibleInTree { return b }
            for v in view.subviews.reversed() { if let b = find(v) { return b } }
            return nil
        }
        return find(scene)
    }

    /// How often the scene asked for an effect.
    public func effects(_ effect: Sound) -> Int {
        sound.requests.filter { $0 == .effect(effect) }.count
    }
}
