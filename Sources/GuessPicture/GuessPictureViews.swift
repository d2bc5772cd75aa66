import Audio
import Graphics
import Input
import Platform
import UI
#if canImport(Glibc)
import Glibc
#endif

/// The picture on a raised card; a tap enlarges it.
final class PictureCard: View {
    var emoji: String = "" { didSet { if emoji != oldValue { setNeedsDisplay() } } }
    var onTap: (() -> Void)?

    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        cornerRadius = Theme.radius
        visualOutset = 14
    }

    override var acceptsTouches: Bool { true }

    override func touchEnded(_ touch: Touch) {
        if bounds.insetBy(-12, -12).contains(touch.location) { onTap?() }
    }

    override func draw(_ canvas: Canvas) {
        canvas.fillRoundedRect(bounds, radius: cornerRadius, Color(hex: 0xFFF4DE), shadow: .standard)
        canvas.strokeRoundedRect(bounds, radius: cornerRadius, width: 3, Color(hex: 0xE8D2A6))
        canvas.drawEmoji(emoji, in: bounds.insetBy(bounds.width * 0.14, bounds.height * 0.14), fonts: UIEnvironment.fonts)
    }
}

/// One answer slot: empty, holding a character, or judged (blue right, red wrong).
final class SlotView: View {
    var character: Character? { didSet { if character != oldValue { setNeedsDisplay() } } }
    var judgement: GuessPictureModel.Judgement = .incomplete { didSet { if judgement != oldValue { setNeedsDisplay() } } }
    var onTap: (() -> Void)?

    override init(frame: Rect = .zero) {
        super.init(frame: frame)
        cornerRadius = 10
        visualOutset = 6
    }

    override var acceptsTouches: Bool { true }

    /// A slot is small on a long answer: still a finger-sized target.
    override var hitArea: Rect {
        let dx = max(0, (Theme.minTouch - bounds.width) / 2)
        let dy = max(0, (Theme.minTouch - bounds.height) / 2)
        return bounds.insetBy(-dx, -dy)
    }

    override func touchBegan(_ touch: Touch) {
        onTap?()
    }

    /// Filled slots take the stick's focus too, so a character can be sent back with keys.
    override var isFocusable: Bool { character != nil && !isHidden }

    override func activate() {
        onTap?()
    }

    override func draw(_ canvas: Canvas) {
        if isFocused {
            canvas.strokeRoundedRect(bounds.insetBy(-4, -4), radius: cornerRadius + 4, width: 3, Theme.accent)
        }
        // A slot's face (empty: an outline; filled: a raised tile) is the same for every slot
        // of a size: one cached picture, as a Button's face is.
        guard let character else {
            canvas.drawCachedPanel(bounds, radius: cornerRadius, Theme.surface, border: (2, Theme.textDim.withAlpha(0.5)))
            return
        }
        let fill: Color
        switch judgement {
        case .incomplete: fill = Theme.text
        case .right: fill = Theme.success
        case .wrong: fill = Theme.error
        }
        // While it pops (its scale animating) a slot is a new size every frame: drawn
        // straight, not made into a picture for one frame.
        if scale != 1 {
            canvas.fillRoundedRect(bounds, radius: cornerRadius, fill, shadow: Shadow(blur: 4, offsetY: 2))
        } else {
            canvas.drawCachedPanel(bounds, radius: cornerRadius, fill, shadow: Shadow(blur: 4, offsetY: 2))
        }
        let color = judgement == .incomplete ? Theme.background : Color.white
        canvas.drawText(String(character), in: bounds,
                        style: TextStyle(size: bounds.height * 0.55, weight: .bold, color: color),
                        fonts: UIEnvironment.fonts, wrap: false)
    }
}

/// The picture grown to the screen's width (as far as the screen allows) over a dimmed
/// cover in one second; a tap anywhere puts it back.
final class BigPictureOverlay: View {
    let picture: ImageView
    var onTap: (() -> Void)?
    private var small = Rect.zero
    private var large = Rect.zero

    init(emoji: String) {
        picture = ImageView(emoji: emoji)
        super.init(frame: .zero)
        backgroundColor = Theme.dimCover
        addSubview(picture)
    }

    override var acceptsTouches: Bool { true }

    override func touchBegan(_ touch: Touch) {
        onTap?()
    }

    func layout(in size: Size, from card: Rect) {
        frame = Rect(0, 0, size.width, size.height)
        small = card.insetBy(card.width * 0.14, card.height * 0.14)
        let side = min(size.width, size.height) - 24
        large = Rect(center: Point(size.width / 2, size.height / 2), size: Size(side, side))
        picture.frame = large
    }

    func grow(animator: Animator) {
        alpha = 0
        picture.frame = small
        animator.tween(duration: 1.0, easing: .easeOut) { [weak self] t in
            guard let self else { return }
            self.alpha = min(1, t * 2)
            self.picture.frame = Self.interpolate(self.small, self.large, t)
        }
    }

    func shrink(animator: Animator) {
        animator.tween(duration: Theme.normal, easing: .easeOut) { [weak self] t in
            guard let self else { return }
            self.alpha = 1 - t
            self.picture.frame = Self.interpolate(self.large, self.small, t)
        }.onComplete { [weak self] in self?.removeFromSuperview() }
    }

    static func interpolate(_ a: Rect, _ b: Rect, _ t: Double) -> Rect {
        Rect(lerp(a.x, b.x, t), lerp(a.y, b.y, t), lerp(a.width, b.width, t), lerp(a.height, b.height, t))
    }
}
