import CopyKernels
import Graphics
import Input

/// The picture the player sees: one scene drawn into a shadow surface, redrawing only
/// what changed. A display backend copies the returned damage out to the real screen.
public final class Screen {
    public let pixelWidth: Int
    public let pixelHeight: Int
    /// Pixels per logical point.
    public let scale: Double
    public let size: Size
    /// What the scene is drawn into (xrgb8888); never read back from scan-out memory.
    public let shadow: Surface
    public private(set) var scene: Scene?
    /// Fingers followed for swipes (`handle(_:)`); forgotten at each scene change.
    private var swipes: GestureRecognizer
    private var fullDamage = true
    public private(set) var lastDamage = DamageRegion()
    public var background = Theme.background
    /// Moves the whole picture (and where touches land) by a few points: burn-in care.
    public var contentOffset = Point.zero { didSet { if contentOffset != oldValue { fullDamage = true } } }
    /// Darkens the picture (0: as drawn, 1: black) when there is no backlight to dim.
    public var dim = 0.0 { didSet { if dim != oldValue { fullDamage = true } } }
    /// A damaged rectangle of more than four times this many bytes is drawn in bands of
    /// about this many, top to bottom (0: every rectangle whole); see `bandBytes(lastLevelCache:)`.
    public var bandBytes = Screen.bandBytes(lastLevelCache: Int(bw_last_level_cache_bytes()))

    /// Layout scale: the short side holds at least 480 points and the long side 800, so
    /// 480x320 up to 1920x1080 (either orientation) get the same layouts, scaled.
    public static func pointScale(width: Int, height: Int) -> Double {
        let long = Double(max(width, height)), short = Double(min(width, height))
        return min(long / 800, short / 480)
    }

    public init(width: Int, height: Int) {
        pixelWidth = width
        pixelHeight = height
        scale = Screen.pointScale(width: width, height: height)
        size = Size(Double(width) / scale, Double(height) / scale)
        shadow = Surface(width: width, height: height, format: .xrgb8888)
        swipes = GestureRecognizer(pixelsPerPoint: scale)
        KeptSurfaces.shared.fit(screenWidth: width, height: height)
    }

    /// Every view drawing into a rectangle passes over its pixels once more (a background,
    /// the lawn's stripes, pictures, text). Where the rectangle is bigger than half the
    /// last-level cache each pass goes to memory; drawn in bands of an eighth of that cache,
    /// a band's passes stay in it and the frame goes to memory once. Smaller bands cost
    /// more than they save: each one walks the view tree again and sets up again every
    /// shape it crosses. On a Zen 1 with 8 MB of L3 (docs/PERFORMANCE.md, sixteenth pass)
    /// 1920x1080 full redraws take up to a fifth less, the SDL2 peer's lawn half; 1280x800 (4 MB)
    /// fits and stays whole, where bands cost 10-15%. No cache figure: a Pi 4's 1 MB L2.
    public static func bandBytes(lastLevelCache: Int) -> Int {
        max(256 << 10, (lastLevelCache > 0 ? lastLevelCache : 1 << 20) / 8)
    }

    /// `rect` as the bands it is drawn in (itself when it is small enough).
    public func bands(_ rect: PixelRect) -> [PixelRect] {
        let bytes = rect.area * shadow.format.bytesPerPixel
        guard bandBytes > 0, bytes > 4 * bandBytes, rect.height > 1 else { return [rect] }
        let count = min(rect.height, (bytes + bandBytes - 1) / bandBytes)
        let rows = (rect.height + count - 1) / count
        return stride(from: rect.y, to: rect.maxY, by: rows).map { PixelRect(rect.x, $0, rect.width, min(rows, rect.maxY - $0)) }
    }

    /// Replaces the scene; the next frame redraws everything.
    public func show(_ next: Scene, now: Double) {
        if let old = scene {
            old.cancelAllTouches()
            old.willDisappear()
        }
        swipes.reset()
        KeptSurfaces.shared.screenChanged()
        scene = next
        next.resize(to: size)
        next.advance(to: now)
        next.didAppear()
        fullDamage = true
    }

    /// Forces a full redraw next frame (after a VT switch or a modeset).
    public func invalidateAll() { fullDamage = true }

    /// Whether a frame now could draw anything: input, a running game or animation.
    public var wantsFrame: Bool {
        guard let scene else { return false }
        return fullDamage || scene.isLive || scene.animator.isAnimating || scene.childNeedsDisplay || scene.needsDisplay
    }

    /// Advances the scene to `now`, draws what changed into the shadow surface and
    /// returns those pixels (empty: nothing to present).
    @discardableResult
    public func renderFrame(now: Double) -> DamageRegion {
        guard let scene else { return DamageRegion() }
        scene.advance(to: now)
        var damage = DamageRegion()
        let place = ViewTransform(offset: contentOffset, scale: 1)
        scene.collectDamage(&damage, parent: place, screenScale: scale, screenBounds: shadow.bounds)
        if fullDamage {
            damage = DamageRegion(shadow.bounds)
            fullDamage = false
        }
        for rect in damage.rects.flatMap(bands) {
            var canvas = Canvas(surface: shadow, scale: scale)
            canvas.clip = rect
            // Under a scene that paints the rect opaque itself, a clear would fill every
            // pixel twice (a full frame: 4-8 MB more written).
            if !scene.paintsClipOpaquely(canvas, parent: place, screenScale: scale) {
                shadow.clear(rect, to: background)
            }
            scene.drawTree(canvas, parent: place, screenScale: scale)
            if dim > 0 {
                canvas.fill(Rect(Double(rect.x) / scale, Double(rect.y) / scale, Double(rect.width) / scale + 1,
                                     Double(rect.height) / scale + 1), Color.black.withAlpha(min(1, dim)))
            }
        }
        lastDamage = damage
        return damage
    }

    // MARK: - Input (pixels in, points to the scene)

    /// The one route for input: each event reaches the scene once, and touches also go
    /// through the swipe recognizer, whose swipes reach `Scene.handleSwipe`. Scenes see
    /// taps as touches (their buttons), so only swipes are recognised here: nothing times
    /// a long press, and nothing wakes the loop for one.
    public func handle(_ event: InputEvent) {
        guard let scene else { return }
        switch event {
        case .touch(let t):
            scene.handleTouch(t, location: Point(t.x / scale - contentOffset.x, t.y / scale - contentOffset.y))
            for case .swipe(let direction, _, _, _, _, _) in swipes.handle(t) {
                _ = scene.handleSwipe(direction)
            }
        case .key(let k):
            scene.handleKeyEvent(k)
        }
    }
}
