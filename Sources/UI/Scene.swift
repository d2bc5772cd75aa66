import Graphics
import Input
import Synchronization

/// A whole screen: the root of a view tree plus its animations, input routing and focus.
/// Games subclass it; the kiosk shows one scene at a time through a `Screen`.
open class Scene: View {
    public let animator = Animator()
    /// Seconds, the frame clock.
    public private(set) var now: Double = 0
    /// Set by the kiosk: leave this scene for the menu.
    public var onHome: (() -> Void)?
    /// The views a finger went down on, per touch id; later events go to the same view.
    private var captured: [Int: View] = [:]
    public private(set) weak var focusedView: View?

    public init() {
        super.init(frame: .zero)
        Scene.liveScenes.add(1, ordering: .relaxed)
    }

    deinit { Scene.liveScenes.subtract(1, ordering: .relaxed) }

    /// Scenes alive now, for the soak's memory report.
    private static let liveScenes = Atomic<Int>(0)
    public static var liveSceneCount: Int { liveScenes.load(ordering: .relaxed) }

    public var size: Size { frame.size }

    /// Sets the scene's size in points and lays it out.
    public func resize(to size: Size) {
        frame = Rect(0, 0, size.width, size.height)
        layout()
    }

    // MARK: - For subclasses

    /// Build or move subviews for `size` (landscape or portrait).
    open func layout() {}
    /// Advance game state; `dt` is the time since the last frame (0 on the first).
    open func update(dt: Double) {}
    open func didAppear() {}
    open func willDisappear() {}
    /// Return true when the swipe was used.
    open func handleSwipe(_ direction: SwipeDirection) -> Bool { false }
    /// A key before focus navigation sees it; return true when used.
    open func handleKey(_ key: Key) -> Bool { false }
    /// Escape / back button: by default, home.
    open func handleBack() { onHome?() }
    /// True while the scene changes every frame without input (a running game).
    open var isLive: Bool { false }

    // MARK: - Driving (called by Screen)

    func advance(to time: Double) {
        let dt = now == 0 ? 0 : max(0, time - now)
        now = time
        animator.update(now: time)
        update(dt: dt)
    }

    /// The topmost modal view (a dialog, a game's end-of-game panel), which takes all
    /// touches and focus while shown.
    var modal: View? {
        subviews.last(where: { ($0 is Dialog || $0 is EndOfGamePanel) && !$0.isHidden })
    }

    public func handleTouch(_ event: TouchEvent, location: Point) {
        switch event.phase {
        case .down:
            let target = (modal ?? self).hitTest(convertFromScene(location, to: modal)) ?? (modal ?? self)
            captured[event.id] = target
            target.touchBegan(touch(event, location, target))
        case .move:
            if let v = captured[event.id] { v.touchMoved(touch(event, location, v)) }
        case .up:
            if let v = captured.removeValue(forKey: event.id) { v.touchEnded(touch(event, location, v)) }
        case .cancel:
            if let v = captured.removeValue(forKey: event.id) { v.touchCancelled(touch(event, location, v)) }
        }
    }

    private func convertFromScene(_ p: Point, to view: View?) -> Point {
        guard let view else { return p }
        return view.convertFromRoot(p)
    }

    /// Fingers currently down, for scenes that want multi-touch state.
    public var activeTouchCount: Int { captured.count }

    /// Drops every captured finger (the scene is leaving, or a device vanished).
    public func cancelAllTouches() {
        let all = captured
        captured.removeAll()
        for (id, v) in all {
            v.touchCancelled(Touch(id: id, location: .zero, rootLocation: .zero, time: now))
        }
    }

    private func touch(_ e: TouchEvent, _ p: Point, _ v: View) -> Touch {
        Touch(id: e.id, location: v.convertFromRoot(p), rootLocation: p, time: e.time)
    }

    public func handleKeyEvent(_ event: KeyEvent) {
        guard event.isPressed else { return }
        if modal == nil && handleKey(event.key) { return }
        switch event.key {
        case .up: moveFocus(.up)
        case .down: moveFocus(.down)
        case .left: moveFocus(.left)
        case .right: moveFocus(.right)
        case .confirm, .start, .digit1:
            if let f = focusedView, f.isVisibleInTree { f.activate() } else { moveFocus(.down) }
        case .back:
            switch modal {
            case let dialog as Dialog: dialog.cancel()
            case let panel as EndOfGamePanel: panel.back()
            default: handleBack()
            }
        case .service, .select, .digit0, .digit2, .digit3, .digit4, .digit5, .digit6, .digit7, .digit8, .digit9, .coin: break
        }
    }

    // MARK: - Focus

    public func focus(_ view: View?) {
        focusedView?.isFocused = false
        focusedView = view
        view?.isFocused = true
    }

    func focusableViews() -> [View] {
        var out: [View] = []
        func walk(_ v: View) {
            guard !v.isHidden, v.alpha > 0 else { return }
            if v.isFocusable { out.append(v) }
            v.subviews.forEach(walk)
        }
        walk(modal ?? self)
        return out
    }

    /// Moves focus to the nearest focusable view in a direction (spatial navigation).
    public func moveFocus(_ direction: SwipeDirection) {
        let candidates = focusableViews()
        guard !candidates.isEmpty else { return }
        guard let current = focusedView, candidates.contains(where: { $0 === current }) else {
            focus(candidates.min { a, b in
                let ra = a.rectInRoot, rb = b.rectInRoot
                return (ra.minY, ra.minX) < (rb.minY, rb.minX)
            })
            return
        }
        let from = current.rectInRoot.center
        var best: (View, Double)?
        for v in candidates where v !== current {
            let to = v.rectInRoot.center
            let dx = to.x - from.x, dy = to.y - from.y
            let (along, across): (Double, Double)
            switch direction {
            case .right: (along, across) = (dx, abs(dy))
            case .left: (along, across) = (-dx, abs(dy))
            case .down: (along, across) = (dy, abs(dx))
            case .up: (along, across) = (-dy, abs(dx))
            }
            guard along > 1 else { continue }
            let score = along + 2 * across
            if best == nil || score < best!.1 { best = (v, score) }
        }
        if let (v, _) = best { focus(v) }
    }
}
