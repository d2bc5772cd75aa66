import Graphics
import UI

#if canImport(Glibc)
import Glibc
#endif

/// A picture set for the card faces: 18 emoji, enough for the 6x6 grid.
struct CardTheme: Sendable {
    let key: String
    let english: String
    let chinese: String
    let faces: [String]

    static let all: [CardTheme] = [
        CardTheme(key: "animals", english: "Animals", chinese: "动物",
                  faces: ["🐶", "🐱", "🐭", "🐹", "🐰", "🦊", "🐻", "🐼", "🐨",
                          "🐯", "🦁", "🐮", "🐷", "🐸", "🐵", "🐔", "🐧", "🐙"]),
        CardTheme(key: "fruit", english: "Fruit", chinese: "水果",
                  faces: ["🍎", "🍐", "🍊", "🍋", "🍌", "🍉", "🍇", "🍓", "🫐",
                          "🍒", "🍑", "🥭", "🍍", "🥥", "🥝", "🍅", "🥑", "🌽"]),
        CardTheme(key: "vehicles", english: "Vehicles", chinese: "交通",
                  faces: ["🚗", "🚕", "🚙", "🚌", "🚎", "🚓", "🚑", "🚒", "🚐",
                          "🚚", "🚛", "🚜", "🛵", "🚲", "🚂", "🚁", "🚀", "⛵"]),
        CardTheme(key: "sweets", english: "Sweets", chinese: "甜点",
                  faces: ["🍩", "🍪", "🎂", "🍰", "🧁", "🍫", "🍬", "🍭", "🍮",
                          "🍯", "🍦", "🍨", "🍧", "🥧", "🍡", "🥮", "🍿", "🧇"]),
    ]
}

/// One card. `turn` runs 0 (back up) to 1 (face up); in between the card narrows to its
/// edge at 0.5 and widens again showing the other side - a turn about its vertical axis.
final class CardView: View {
    let index: Int
    var face: String { didSet { if face != oldValue { setNeedsDisplay() } } }
    var turn: Double = 0 { didSet { if turn != oldValue { setNeedsDisplay() } } }
    var isMatched = false { didSet { if isMatched != oldValue { setNeedsDisplay() } } }
    var isWrong = false { didSet { if isWrong != oldValue { setNeedsDisplay() } } }
    var onTap: ((Int) -> Void)?

    init(index: Int, face: String) {
        self.index = index
        self.face = face
        super.init(frame: .zero)
        visualOutset = 8
    }

    override var acceptsTouches: Bool { true }
    override var isFocusable: Bool { !isHidden }

    /// Cards turn on touch-down: the quickest answer to a quick player.
    override func touchBegan(_ touch: Touch) { onTap?(index) }
    override func activate() { onTap?(index) }

    override func draw(_ canvas: Canvas) {
        // On whole pixels: every card back in the grid is then the same picture.
        let canvas = canvas.snappedToPixels()
        let width = bounds.width * abs(cos(Double.pi * turn))
        let radius = min(Theme.radius, bounds.width * 0.12)
        if isFocused {
            canvas.strokeRoundedRect(bounds.insetBy(-5, -5), radius: radius + 5, width: 3, Theme.text)
        }
        guard width > 1 else { return }
        if turn == 0 {
            // A card at rest, back up (most of a grid, most of the time): one picture, its
            // shadow with it, made once per size.
            let margin = visualOutset
            canvas.drawCached("memory.card-back", in: bounds.insetBy(-margin, -margin)) { c in
                self.drawCard(c.translated(by: Point(margin, margin)), width: width, radius: radius)
            }
        } else {
            drawCard(canvas, width: width, radius: radius)
        }
    }

    /// The card, `width` wide (narrowed as it turns), with its shadow.
    private func drawCard(_ canvas: Canvas, width: Double, radius: Double) {
        let card = Rect(bounds.midX - width / 2, 0, width, bounds.height)
        let r = min(radius, width / 2)
        canvas.shadow(card, radius: r, blur: 4, offsetY: 2, color: Color(r: 0, g: 0, b: 0, a: 80))
        if turn < 0.5 {
            drawBack(canvas, card, r)
        } else {
            drawFace(canvas, card, r)
        }
    }

    /// The back: the kiosk's amber over a deep panel, a diamond lattice and a "?" badge.
    private func drawBack(_ canvas: Canvas, _ card: Rect, _ r: Double) {
        canvas.fillRoundedRect(card, radius: r, Theme.surfaceRaised)
        let inner = card.insetBy(card.width * 0.09, bounds.height * 0.09)
        guard inner.width > 2 else { return }
        canvas.fillRoundedRect(inner, radius: max(2, r * 0.6), Color(hex: 0x39426A))
        let step = bounds.width / 4
        let squeeze = card.width / bounds.width
        let lattice = canvas.clipped(to: inner)
        var y = inner.minY + step * 0.25
        while y < inner.maxY {
            var x = bounds.midX - step * 1.5
            while x < bounds.midX + step * 1.6 {
                let cx = bounds.midX + (x - bounds.midX) * squeeze
                let half = step * 0.28
                lattice.fillPolygon([Point(cx, y - half), Point(cx + half * squeeze, y),
                                    Point(cx, y + half), Point(cx - half * squeeze, y)],
                                   Theme.accent.withAlpha(0.22))
                x += step
            }
            y += step
        }
        let badge = min(inner.height, bounds.width) * 0.42
        canvas.fillEllipse(Rect(center: inner.center, size: Size(badge * squeeze, badge)), Theme.accent)
        if squeeze > 0.35 {
            canvas.drawText("?", in: Rect(center: inner.center, size: Size(badge * squeeze, badge)),
                            style: TextStyle(size: badge * 0.62, weight: .bold, color: Theme.accentText),
                            fonts: UIEnvironment.fonts, wrap: false)
        }
    }

    /// The face: the picture on a light card, ringed blue once matched, red when wrong.
    private func drawFace(_ canvas: Canvas, _ card: Rect, _ r: Double) {
        canvas.fillRoundedRect(card, radius: r, isMatched ? Color(hex: 0xDCE7FB) : Color(hex: 0xF4F1EA))
        if isMatched || isWrong {
            canvas.strokeRoundedRect(card.insetBy(2, 2), radius: max(1, r - 2), width: 4,
                                     isWrong ? Theme.error : Theme.success)
        }
        let side = min(bounds.width, bounds.height) * 0.64
        guard let scalar = face.unicodeScalars.first,
              let image = UIEnvironment.fonts.emojiImage(scalar, pixelSize: min(160, max(8, Int(side * canvas.scale))))
        else { return }
        let squeeze = card.width / bounds.width
        let aspect = Double(image.width) / Double(image.height)
        let picture = Rect(center: card.center, size: Size(side * aspect * squeeze, side))
        canvas.drawImage(image, in: picture, alpha: isMatched ? 0.9 : 1)
    }
}


/// "m:ss" for the clock.
func clockText(_ seconds: Double) -> String {
    let whole = max(0, Int(seconds))
    let s = whole % 60
    return "\(whole / 60):\(s < 10 ? "0" : "")\(s)"
}
