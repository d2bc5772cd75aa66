import Graphics

/// Text in a rectangle: wrapped, aligned, vertically centred.
open class Label: View {
    public var text: String { didSet { if text != oldValue { setNeedsDisplay() } } }
    public var style: TextStyle { didSet { if style != oldValue { setNeedsDisplay() } } }
    public var wraps = true
    /// Shrinks the font until one line fits the width (scores, tile numbers).
    public var shrinksToFit = false

    public init(_ text: String = "", style: TextStyle = Theme.body, frame: Rect = .zero) {
        self.text = text
        self.style = style
        super.init(frame: frame)
    }

    open override func draw(_ canvas: Canvas) {
        super.draw(canvas)
        guard !text.isEmpty else { return }
        let fonts = UIEnvironment.fonts
        var s = style
        if shrinksToFit {
            let available = bounds.width * 0.92
            let w = fonts.measure(text, style: s, scale: canvas.scale)
            if w > available { s.size = max(6, s.size * available / w) }
        }
        canvas.drawText(text, in: bounds, style: s, fonts: fonts, wrap: wraps && !shrinksToFit)
    }
}

/// A colour emoji or an image, fitted into the frame, turned by `rotation`.
open class ImageView: View {
    public var emoji: String? { didSet { if emoji != oldValue { setNeedsDisplay() } } }
    public var image: Surface? { didSet { if image !== oldValue { setNeedsDisplay() } } }
    /// Mirror left-right (a sprite walking the other way).
    public var flipped = false { didSet { if flipped != oldValue { setNeedsDisplay() } } }

    public init(emoji: String? = nil, image: Surface? = nil, frame: Rect = .zero) {
        self.emoji = emoji
        self.image = image
        super.init(frame: frame)
    }

    open override func draw(_ canvas: Canvas) {
        super.draw(canvas)
        if let image {
            canvas.drawImage(image, in: bounds, rotation: rotation)
        } else if let emoji {
            canvas.drawEmoji(emoji, in: bounds, fonts: UIEnvironment.fonts, rotation: rotation)
        }
    }
}

/// A raised rounded panel with a soft shadow.
open class Panel: View {
    public var fill: Color { didSet { if fill != oldValue { setNeedsDisplay() } } }
    public var border: Color? { didSet { if border != oldValue { setNeedsDisplay() } } }
    public var hasShadow = true

    public init(frame: Rect = .zero, fill: Color = Theme.surface, radius: Double = Theme.radius) {
        self.fill = fill
        super.init(frame: frame)
        cornerRadius = radius
        visualOutset = 14
    }

    open override func draw(_ canvas: Canvas) {
        canvas.fillRoundedRect(bounds, radius: cornerRadius, fill, shadow: hasShadow ? .standard : nil)
        if let border { canvas.strokeRoundedRect(bounds, radius: cornerRadius, width: 2, border) }
    }
}

/// A view that draws with a closure: for one-off art (a lawn, a house) without a subclass.
open class DrawingView: View {
    public var drawing: (Canvas, Rect) -> Void

    public init(frame: Rect = .zero, drawing: @escaping (Canvas, Rect) -> Void) {
        self.drawing = drawing
        super.init(frame: frame)
    }

    open override func draw(_ canvas: Canvas) {
        super.draw(canvas)
        drawing(canvas, bounds)
    }
}
