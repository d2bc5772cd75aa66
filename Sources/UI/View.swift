import Graphics
import Input
import Synchronization

/// Where a view's local points land on screen: screen = local * scale + offset (points).
public struct ViewTransform: Sendable, Equatable {
    public var offset: Point
    public var scale: Double
    public static let identity = ViewTransform(offset: .zero, scale: 1)

    public func apply(_ p: Point) -> Point { Point(p.x * scale + offset.x, p.y * scale + offset.y) }
    public func apply(_ r: Rect) -> Rect {
        Rect(r.x * scale + offset.x, r.y * scale + offset.y, r.width * scale, r.height * scale)
    }
    public func invert(_ p: Point) -> Point { Point((p.x - offset.x) / scale, (p.y - offset.y) / scale) }
}

/// A node of the view tree. Frames are in the parent's points; `scale` and `alpha`
/// animate around the frame's centre without changing layout. Any change marks the
/// pixels the view covered and now covers as damaged (or, where the view names the part
/// of its content that changed, `setNeedsDisplay(_:)`, only that part); nothing else is
/// redrawn.
open class View {
    public private(set) var subviews: [View] = []
    public private(set) weak var superview: View?

    public var frame: Rect {
        didSet {
            guard frame != oldValue else { return }
            invalidateSubtree()
            if frame.size != oldValue.size { layoutSubviews() }
        }
    }
    public var isHidden = false { didSet { if isHidden != oldValue { invalidateSubtree() } } }
    public var alpha: Double = 1 { didSet { if alpha != oldValue { invalidateSubtree() } } }
    public var scale: Double = 1 { didSet { if scale != oldValue { invalidateSubtree() } } }
    /// Radians about the centre. Honoured by views that draw images (sprites, emoji);
    /// damage covers the turned bounds.
    public var rotation: Double = 0 { didSet { if rotation != oldValue { invalidateSubtree() } } }
    /// How far the drawing reaches outside the frame (shadows, focus rings), in points.
    public var visualOutset: Double = 0 { didSet { if visualOutset != oldValue { invalidateSubtree() } } }
    public var backgroundColor: Color? { didSet { if backgroundColor != oldValue { setNeedsDisplay() } } }
    /// A background that fades down the view, square (no `cornerRadius`); drawn where
    /// `backgroundColor` is nil.
    public var backgroundGradient: VerticalGradient? { didSet { if backgroundGradient != oldValue { setNeedsDisplay() } } }
    public var cornerRadius: Double = 0 { didSet { if cornerRadius != oldValue { setNeedsDisplay() } } }
    public var clipsToBounds = false
    public var isUserInteractionEnabled = true
    /// Can hold keyboard/stick focus.
    open var isFocusable: Bool { false }
    public internal(set) var isFocused = false { didSet { if isFocused != oldValue { setNeedsDisplay() } } }
    public var tag = ""

    var needsDisplay = true
    var childNeedsDisplay = true
    /// Where this view was last drawn, in screen pixels.
    var lastPixelRect: PixelRect?
    /// Pixels left by removed subviews, damaged on the next frame.
    var pendingDamage: [PixelRect] = []
    /// Parts of the view's own content that changed (local points), where not all of it did.
    private var changedParts: [Rect] = []

    public init(frame: Rect = .zero) {
        self.frame = frame
        View.live.add(1, ordering: .relaxed)
    }

    deinit { View.live.subtract(1, ordering: .relaxed) }

    // The soak's memory report: views (scenes included) alive now. A count that keeps
    // rising is a view tree kept alive by something (a closure, a cache).
    private static let live = Atomic<Int>(0)
    public static var liveCount: Int { live.load(ordering: .relaxed) }

    public var bounds: Rect { Rect(0, 0, frame.width, frame.height) }

    /// Called when the frame's size changes: place subviews here.
    open func layoutSubviews() {}

    // MARK: - Tree

    public func addSubview(_ view: View) {
        view.removeFromSuperview()
        view.superview = self
        subviews.append(view)
        view.invalidateSubtree()
    }

    public func insertSubview(_ view: View, at index: Int) {
        view.removeFromSuperview()
        view.superview = self
        subviews.insert(view, at: max(0, min(index, subviews.count)))
        view.invalidateSubtree()
    }

    public func removeFromSuperview() {
        guard let parent = superview else { return }
        var rects: [PixelRect] = []
        collectLastRects(into: &rects)
        parent.root.pendingDamage.append(contentsOf: rects)
        parent.root.markChildNeedsDisplay()
        parent.subviews.removeAll { $0 === self }
        superview = nil
        if isFocused { isFocused = false }
    }

    public func removeAllSubviews() {
        for v in subviews { v.removeFromSuperview() }
    }

    public func bringToFront(_ view: View) {
        guard let i = subviews.firstIndex(where: { $0 === view }) else { return }
        subviews.remove(at: i)
        subviews.append(view)
        view.invalidateSubtree()
    }

    private func collectLastRects(into rects: inout [PixelRect]) {
        if let r = lastPixelRect { rects.append(r) }
        lastPixelRect = nil
        for v in subviews { v.collectLastRects(into: &rects) }
    }

    public var root: View {
        var v = self
        while let p = v.superview { v = p }
        return v
    }

    public var scene: Scene? { root as? Scene }

    /// True when this view and every ancestor are visible.
    public var isVisibleInTree: Bool {
        var v: View? = self
        while let view = v {
            if view.isHidden || view.alpha <= 0 { return false }
            v = view.superview
        }
        return true
    }

    // MARK: - Damage

    /// The view's own content changed.
    public func setNeedsDisplay() {
        needsDisplay = true
        superview?.markChildNeedsDisplay()
    }

    /// Only this part of the view's own content changed (local points): a game's sprites
    /// moving over a still background redraw where they were and where they are, not the
    /// whole view.
    public func setNeedsDisplay(_ rect: Rect) {
        guard !needsDisplay, !rect.isEmpty else { return }
        changedParts.append(rect)
        superview?.markChildNeedsDisplay()
    }

    /// The view moved, resized, faded or scaled: it and everything inside it.
    public func invalidateSubtree() {
        needsDisplay = true
        childNeedsDisplay = true
        for v in subviews { v.invalidateSubtree() }
        superview?.markChildNeedsDisplay()
    }

    func markChildNeedsDisplay() {
        var v: View? = self
        while let view = v, !view.childNeedsDisplay {
            view.childNeedsDisplay = true
            v = view.superview
        }
    }

    // MARK: - Geometry

    /// The transform from this view's points to the root's points.
    public var transformToRoot: ViewTransform {
        let parent = superview?.transformToRoot ?? .identity
        return parent.composed(withChildFrame: frame, scale: scale)
    }

    /// This view's rectangle in root points.
    public var rectInRoot: Rect { transformToRoot.apply(bounds) }

    public func convertFromRoot(_ p: Point) -> Point { transformToRoot.invert(p) }

    func pixelRect(transform: ViewTransform, screenScale: Double) -> PixelRect {
        var r = transform.apply(bounds.insetBy(-visualOutset, -visualOutset))
        if rotation != 0 {
            let c = cos(rotation), s = sin(rotation)
            let ex = abs(r.width / 2 * c) + abs(r.height / 2 * s)
            let ey = abs(r.width / 2 * s) + abs(r.height / 2 * c)
            r = Rect(r.midX - ex, r.midY - ey, 2 * ex, 2 * ey)
        }
        return View.pixels(of: r, screenScale: screenScale)
    }

    /// A rectangle of root points in whole pixels, with one pixel of margin for anti-aliased edges.
    private static func pixels(of r: Rect, screenScale: Double) -> PixelRect {
        Rect(r.x * screenScale - 1, r.y * screenScale - 1, r.width * screenScale + 2,
             r.height * screenScale + 2).enclosingPixels
    }

    /// Walks the tree, adding to `damage` the old and new pixels of every changed view.
    func collectDamage(_ damage: inout DamageRegion, parent: ViewTransform, screenScale: Double,
                       screenBounds: PixelRect) {
        guard childNeedsDisplay || needsDisplay || !changedParts.isEmpty else { return }
        for r in pendingDamage { damage.add(r.intersection(screenBounds)) }
        pendingDamage.removeAll()
        let transform = parent.composed(withChildFrame: frame, scale: scale)
        // Parts only where the view is where it was drawn last, unturned; otherwise all of it.
        if !needsDisplay, !changedParts.isEmpty {
            let now = pixelRect(transform: transform, screenScale: screenScale).intersection(screenBounds)
            if rotation == 0, now == lastPixelRect, !isHidden, alpha > 0 {
                for part in changedParts {
                    damage.add(View.pixels(of: transform.apply(part), screenScale: screenScale).intersection(now))
                }
            } else {
                needsDisplay = true
            }
        }
        changedParts.removeAll()
        if needsDisplay {
            if let old = lastPixelRect { damage.add(old.intersection(screenBounds)) }
            if !isHidden && alpha > 0 {
                let now = pixelRect(transform: transform, screenScale: screenScale).intersection(screenBounds)
                damage.add(now)
                lastPixelRect = now
            } else {
                lastPixelRect = nil
            }
            needsDisplay = false
        }
        childNeedsDisplay = false
        for v in subviews {
            v.collectDamage(&damage, parent: transform, screenScale: screenScale, screenBounds: screenBounds)
        }
    }

    // MARK: - Drawing

    /// Draws this view's own content in local points (0,0 is the frame's top-left).
    /// An override calls `super.draw` first when it sets a background: the screen counts
    /// on an opaque one being painted (`paintsClipOpaquely`).
    open func draw(_ canvas: Canvas) {
        if let bg = backgroundColor {
            if cornerRadius > 0 {
                canvas.fillRoundedRect(bounds, radius: cornerRadius, bg)
            } else {
                canvas.fill(bounds, bg)
            }
        } else if let g = backgroundGradient {
            canvas.fillVerticalGradient(bounds, top: g.top, bottom: g.bottom)
        }
    }

    /// Draws the subtree into `canvas` (already clipped to a damaged rectangle).
    func drawTree(_ canvas: Canvas, parent: ViewTransform, screenScale: Double) {
        guard !isHidden, alpha > 0 else { return }
        let transform = parent.composed(withChildFrame: frame, scale: scale)
        let c = ownCanvas(canvas, transform: transform, screenScale: screenScale)
        if c.clip.isEmpty { return }
        let mine = pixelRect(transform: transform, screenScale: screenScale)
        if mine.intersects(c.clip) { draw(c) }
        for v in subviews { v.drawTree(c, parent: transform, screenScale: screenScale) }
    }

    /// The canvas this view draws with, inside its parent's.
    private func ownCanvas(_ canvas: Canvas, transform: ViewTransform, screenScale: Double) -> Canvas {
        var c = canvas
        c.scale = transform.scale * screenScale
        c.origin = Point(transform.offset.x * screenScale, transform.offset.y * screenScale)
        c.opacity = canvas.opacity * alpha
        if clipsToBounds { c = c.clipped(to: bounds) }
        return c
    }

    /// Whether `drawTree` starts by painting every pixel of `canvas.clip` opaque: the
    /// view's own background (`draw` fills it first), square, unfaded, on whole pixels.
    /// Then whatever was beneath never shows (the screen skips clearing under such a scene).
    func paintsClipOpaquely(_ canvas: Canvas, parent: ViewTransform, screenScale: Double) -> Bool {
        guard !isHidden, cornerRadius == 0 else { return false }
        let colors = backgroundColor.map { [$0] } ?? backgroundGradient.map { [$0.top, $0.bottom] } ?? []
        let transform = parent.composed(withChildFrame: frame, scale: scale)
        let c = ownCanvas(canvas, transform: transform, screenScale: screenScale)
        guard !colors.isEmpty, colors.allSatisfy({ $0.fading(c.opacity).a == 255 }),
              let whole = c.wholePixels(bounds) else { return false }
        return whole.contains(canvas.clip)
    }

    // MARK: - Touch

    /// The deepest interactive view under a point given in this view's local points.
    public func hitTest(_ p: Point) -> View? {
        guard !isHidden, alpha > 0.01, isUserInteractionEnabled else { return nil }
        let inside = hitArea.contains(p)
        if clipsToBounds && !inside { return nil }
        for v in subviews.reversed() {
            let local = ViewTransform.identity.composed(withChildFrame: v.frame, scale: v.scale).invert(p)
            if let hit = v.hitTest(local) { return hit }
        }
        return inside && acceptsTouches ? self : nil
    }

    /// The rectangle that takes touches; widgets pad small targets to finger size.
    open var hitArea: Rect { bounds }
    /// Whether touches stop here (plain containers let them fall through).
    open var acceptsTouches: Bool { false }

    /// A finger went down on this view; later moves and the lift come here too.
    open func touchBegan(_ touch: Touch) {}
    open func touchMoved(_ touch: Touch) {}
    open func touchEnded(_ touch: Touch) {}
    open func touchCancelled(_ touch: Touch) {}

    /// Enter/confirm while focused.
    open func activate() {}
}

extension ViewTransform {
    func composed(withChildFrame frame: Rect, scale s: Double) -> ViewTransform {
        let local = Point(frame.x + frame.width / 2 * (1 - s), frame.y + frame.height / 2 * (1 - s))
        return ViewTransform(offset: Point(offset.x + scale * local.x, offset.y + scale * local.y),
                             scale: scale * s)
    }
}

/// One finger as a view sees it: positions in the view's local points.
public struct Touch: Sendable {
    public let id: Int
    public let location: Point
    /// Where the finger is in root points.
    public let rootLocation: Point
    public let time: Double
}

#if canImport(Glibc)
import Glibc
#endif
