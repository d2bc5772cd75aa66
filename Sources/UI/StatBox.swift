import Graphics

/// A small caption over a big value on a raised card: a game's score, best, moves, time.
/// The value shrinks to fit its box rather than spill.
public final class StatBox: View {
    public var title: String { didSet { if title != oldValue { setNeedsDisplay() } } }
    public var value: String { didSet { if value != oldValue { setNeedsDisplay() } } }
    /// The value's largest size, in points (it also stays under 45% of the box's height).
    let valueSize: Double
    /// Space between the card's edge and the words, in points.
    private let inset = 8.0

    public init(title: String, value: String = "", valueSize: Double = 32) {
        self.title = title
        self.value = value
        self.valueSize = valueSize
        super.init(frame: .zero)
        cornerRadius = Theme.radius
        backgroundColor = Theme.surface
    }

    public override func draw(_ canvas: Canvas) {
        super.draw(canvas)
        let fonts = UIEnvironment.fonts
        let width = bounds.width - 2 * inset
        canvas.drawText(title.uppercased(), in: Rect(inset, inset - 2, width, bounds.height * 0.36),
                        style: Theme.caption.with(weight: .bold), fonts: fonts, wrap: false)
        var style = TextStyle(size: min(valueSize, bounds.height * 0.45), weight: .bold, color: Theme.text)
        let measured = fonts.measure(value, style: style, scale: canvas.scale)
        if measured > width { style.size *= width / measured }
        canvas.drawText(value, in: Rect(inset, bounds.height * 0.36, width, bounds.height * 0.6),
                        style: style, fonts: fonts, wrap: false)
    }
}
