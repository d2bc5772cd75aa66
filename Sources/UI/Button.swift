import Graphics

/// A pressable button: darkens and dips while a finger is on it, fires on release inside
/// (or, with `holdDuration`, once held that long: a home button players won't hit by
/// chance, with a ring filling up while held). Disabled buttons are greyed and inert.
open class Button: View {
    public enum Kind: Sendable { case primary, secondary, quiet }

    public var title: String { didSet { if title != oldValue { setNeedsDisplay() } } }
    public var icon: String? { didSet { if icon != oldValue { setNeedsDisplay() } } }
    public var kind: Kind { didSet { setNeedsDisplay() } }
    public var textStyle: TextStyle? { didSet { setNeedsDisplay() } }
    public var fillColor: Color? { didSet { setNeedsDisplay() } }
    public var isEnabled = true { didSet { if isEnabled != oldValue { setNeedsDisplay() } } }
    public var action: (() -> Void)?
    /// When set, the action needs the finger held this many seconds.
    public var holdDuration: Double?
    public var playsClick = true

    public private(set) var isPressed = false { didSet { if isPressed != oldValue { setNeedsDisplay() } } }
    /// 0...1 while a hold is in progress.
    public private(set) var holdProgress: Double = 0 { didSet { setNeedsDisplay() } }
    private var pressingTouch: Int?
    private var holdTween: Tween?

    public init(_ title: String = "", icon: String? = nil, kind: Kind = .primary, frame: Rect = .zero,
                action: (() -> Void)? = nil) {
        self.title = title
        self.icon = icon
        self.kind = kind
        self.action = action
        super.init(frame: frame)
        cornerRadius = Theme.radius
        visualOutset = 6
    }

    open override var isFocusable: Bool { isEnabled && !isHidden }
    open override var acceptsTouches: Bool { true }

    /// Small buttons still take a finger-sized touch.
    open override var hitArea: Rect {
        let dx = max(0, (Theme.minTouch - bounds.width) / 2)
        let dy = max(0, (Theme.minTouch - bounds.height) / 2)
        return bounds.insetBy(-dx, -dy)
    }

    var baseFill: Color {
        if let fillColor { return fillColor }
        switch kind {
        case .primary: return Theme.accent
        case .secondary: return Theme.surfaceRaised
        case .quiet: return Theme.surface.withAlpha(0.0)
        }
    }

    var baseText: TextStyle {
        if let textStyle { return textStyle }
        switch kind {
        case .primary: return Theme.button
        case .secondary, .quiet: return Theme.button.with(color: Theme.text)
        }
    }

    open override func draw(_ canvas: Canvas) {
        let r = bounds.insetBy(isPressed ? 2 : 0, isPressed ? 2 : 0)
        var fill = baseFill
        if isPressed { fill = fill.darker(0.25) }
        if !isEnabled { fill = fill.mixed(with: Theme.surface, 0.6) }
        let raised = kind != .quiet && isEnabled && !isPressed
        if fill.a > 0 || raised {  // the same face for every button of a size and colour: one picture
            canvas.drawCachedPanel(r, radius: cornerRadius, fill,
                                   shadow: raised ? Shadow(blur: 4, offsetY: 2, color: Color(r: 0, g: 0, b: 0, a: 70)) : nil)
        }
        if isFocused {
            canvas.strokeRoundedRect(bounds.insetBy(-4, -4), radius: cornerRadius + 4, width: 3, Theme.text)
        }
        var style = baseText
        if !isEnabled { style.color = style.color.withAlpha(0.45) }
        if let icon, !title.isEmpty {
            let iconSize = min(r.height * 0.6, style.size * 1.4)
            let textWidth = UIEnvironment.fonts.measure(title, style: style, scale: canvas.scale)
            let total = iconSize + 8 + textWidth
            let x0 = r.midX - total / 2
            canvas.drawEmoji(icon, in: Rect(x0, r.midY - iconSize / 2, iconSize, iconSize), fonts: UIEnvironment.fonts,
                             alpha: isEnabled ? 1 : 0.45)
            canvas.drawText(title, in: Rect(x0 + iconSize + 8, r.y, textWidth + 2, r.height),
                            style: style.with(alignment: .left), fonts: UIEnvironment.fonts, wrap: false)
        } else if let icon {
            let side = min(r.width, r.height) * 0.62
            canvas.drawEmoji(icon, in: Rect(center: r.center, size: Size(side, side)), fonts: UIEnvironment.fonts,
                             alpha: isEnabled ? 1 : 0.45)
        } else {
            // One line, shrunk to fit rather than broken mid-word.
            let width = UIEnvironment.fonts.measure(title, style: style, scale: canvas.scale)
            if width > r.width - 16 { style.size *= max(0.5, (r.width - 16) / width) }
            canvas.drawText(title, in: r.insetBy(6, 0), style: style, fonts: UIEnvironment.fonts, wrap: false)
        }
        if holdProgress > 0 {
            // A bar along the bottom fills while the button is held.
            let bar = Rect(r.minX + 6, r.maxY - 7, (r.width - 12) * holdProgress, 4)
            canvas.fillRoundedRect(bar, radius: 2, Theme.text)
        }
    }

    open override func touchBegan(_ touch: Touch) {
        guard isEnabled, pressingTouch == nil else { return }
        pressingTouch = touch.id
        isPressed = true
        if let hold = holdDuration, let animator = scene?.animator {
            holdTween = animator.tween(duration: hold, easing: .linear) { [weak self] t in
                self?.holdProgress = t
            }.onComplete { [weak self] in
                guard let self, self.isPressed else { return }
                self.fire()
                self.isPressed = false
                self.pressingTouch = nil
                self.holdProgress = 0
            }
        }
    }

    open override func touchMoved(_ touch: Touch) {
        guard touch.id == pressingTouch else { return }
        // Sliding off the button un-presses it, as on a phone.
        let inside = hitArea.insetBy(-12, -12).contains(touch.location)
        if holdDuration == nil { isPressed = inside } else if !inside { touchCancelled(touch) }
    }

    open override func touchEnded(_ touch: Touch) {
        guard touch.id == pressingTouch else { return }
        let fires = isPressed && holdDuration == nil && hitArea.insetBy(-12, -12).contains(touch.location)
        reset()
        if fires { fire() }
    }

    open override func touchCancelled(_ touch: Touch) {
        guard touch.id == pressingTouch else { return }
        reset()
    }

    private func reset() {
        holdTween?.cancel()
        holdTween = nil
        holdProgress = 0
        isPressed = false
        pressingTouch = nil
    }

    open override func activate() {
        guard isEnabled else { return }
        fire()
    }

    func fire() {
        if playsClick { UIEnvironment.playClick() }
        action?()
    }
}
