import Graphics
import UI

/// Tile colours: bright, around the colour wheel from red at 2 to pink at 1024, as the
/// original demo's rainbow tiles were, then the kiosk's gold at 2048 so the goal stands
/// out; past it the tiles turn deep and keep the gold in their numbers. Each number is
/// white or dark, whichever stands out more on its tile (WCAG contrast).
enum TilePalette {
    static func fill(_ value: Int) -> Color {
        switch value {
        case 2: Color(hex: 0xE53935)     // red
        case 4: Color(hex: 0xF57C00)     // orange
        case 8: Color(hex: 0xFDD835)     // yellow
        case 16: Color(hex: 0x7CB342)    // lime
        case 32: Color(hex: 0x2E9E4F)    // green
        case 64: Color(hex: 0x00ACC1)    // cyan
        case 128: Color(hex: 0x1E88E5)   // blue
        case 256: Color(hex: 0x3949AB)   // indigo
        case 512: Color(hex: 0x8E24AA)   // purple
        case 1024: Color(hex: 0xD81B60)  // pink
        case 2048: Color(hex: 0xFFC107)  // gold
        case 4096: Color(hex: 0x5D4037)  // umber
        default: Color(hex: 0x10131D)
        }
    }

    static let darkText = Color(hex: 0x1B2033)

    static func text(_ value: Int) -> Color {
        if value > 4096 { return Theme.accent }
        let fill = fill(value)
        return fill.contrastRatio(with: .white) >= fill.contrastRatio(with: darkText) ? .white : darkText
    }
}

/// One numbered tile; the number shrinks to fit four or five digits.
final class TileView: View {
    var value: Int { didSet { if value != oldValue { setNeedsDisplay() } } }

    init(value: Int, frame: Rect) {
        self.value = value
        super.init(frame: frame)
        visualOutset = TileView.shadow.reach
    }

    static let shadow = Shadow(blur: 3, offsetY: 2, color: Color(r: 0, g: 0, b: 0, a: 60))

    override func draw(_ canvas: Canvas) {
        let radius = max(4, bounds.width * 0.09)
        canvas.fillRoundedRect(bounds, radius: radius, TilePalette.fill(value),
                               shadow: TileView.shadow)
        let text = String(value)
        var style = TextStyle(size: bounds.height * (text.count <= 2 ? 0.5 : 0.42), weight: .bold,
                              color: TilePalette.text(value))
        let available = bounds.width * 0.82
        let width = UIEnvironment.fonts.measure(text, style: style, scale: canvas.scale)
        if width > available { style.size *= available / width }
        canvas.drawText(text, in: bounds, style: style, fonts: UIEnvironment.fonts, wrap: false)
    }
}

/// The board's well and empty cells; tiles are its subviews, placed by `cellRect`.
final class BoardView: View {
    var size: Int { didSet { if size != oldValue { setNeedsDisplay() } } }

    init(size: Int) {
        self.size = size
        super.init(frame: .zero)
        visualOutset = 14
    }

    var gap: Double { max(4, frame.width * 0.12 / Double(size + 1)) }
    var cell: Double { (frame.width - gap * Double(size + 1)) / Double(size) }

    func cellRect(_ position: Position) -> Rect {
        Rect(gap + Double(position.column) * (cell + gap), gap + Double(position.row) * (cell + gap), cell, cell)
    }

    override func draw(_ canvas: Canvas) {
        canvas.fillRoundedRect(bounds, radius: Theme.radius, Theme.surface, shadow: .standard)
        // The empty cells are the same every frame: one picture a board size, composited
        // (rasterizing 16 rounded squares was half a 1080p full redraw's instructions, and
        // every slide redraws the cells under it).
        let empty = Theme.surfaceRaised, radius = max(4, cell * 0.09)
        canvas.drawCached("2048.cells.\(size)", in: bounds) { c in
            for row in 0..<size {
                for column in 0..<size {
                    c.fillRoundedRect(cellRect(Position(row: row, column: column)), radius: radius, empty)
                }
            }
        }
    }
}


/// A named background colour to pick on the theme tab.
struct BackgroundTheme: Sendable {
    let key: String
    let english: String
    let chinese: String
    let color: Color

    /// The words drawn straight on the colour: the kiosk's light text on a deep colour,
    /// the tiles' dark ink on a bright one, whichever reads better.
    var ink: Color { color.contrastRatio(with: Theme.text) >= color.contrastRatio(with: TilePalette.darkText) ? Theme.text : TilePalette.darkText }
    /// Captions: dimmer than `ink`, still readable.
    var dimInk: Color { ink == Theme.text ? Theme.textDim : Color(hex: 0x3A4058) }

    /// A crayon box around the wheel, deep colours and then bright ones as the original's
    /// had: the words on each (labels, captions, the swatch's name) take its `ink`, and
    /// Game2048SceneTests checks their contrast. Saved by key, so the order may change.
    static let all: [BackgroundTheme] = [
        BackgroundTheme(key: "night", english: "Night", chinese: "夜空", color: Theme.background),
        BackgroundTheme(key: "dusk", english: "Dusk", chinese: "暮色", color: Color(hex: 0x14213D)),
        BackgroundTheme(key: "ocean", english: "Ocean", chinese: "海洋", color: Color(hex: 0x0E2A47)),
        BackgroundTheme(key: "navy", english: "Navy", chinese: "藏青", color: Color(hex: 0x1B2A6B)),
        BackgroundTheme(key: "indigo", english: "Indigo", chinese: "靛蓝", color: Color(hex: 0x2E1A6B)),
        BackgroundTheme(key: "violet", english: "Violet", chinese: "紫罗兰", color: Color(hex: 0x3D1A5C)),
        BackgroundTheme(key: "plum", english: "Plum", chinese: "梅子", color: Color(hex: 0x2F1638)),
        BackgroundTheme(key: "grape", english: "Grape", chinese: "葡萄", color: Color(hex: 0x4A1D5E)),
        BackgroundTheme(key: "berry", english: "Berry", chinese: "莓果", color: Color(hex: 0x5C1440)),
        BackgroundTheme(key: "wine", english: "Wine", chinese: "酒红", color: Color(hex: 0x3B0F22)),
        BackgroundTheme(key: "crimson", english: "Crimson", chinese: "深红", color: Color(hex: 0x6B1020)),
        BackgroundTheme(key: "brick", english: "Brick", chinese: "砖红", color: Color(hex: 0x6A2417)),
        BackgroundTheme(key: "ember", english: "Ember", chinese: "余烬", color: Color(hex: 0x3A1C14)),
        BackgroundTheme(key: "rust", english: "Rust", chinese: "铁锈", color: Color(hex: 0x66320F)),
        BackgroundTheme(key: "cocoa", english: "Cocoa", chinese: "可可", color: Color(hex: 0x3E2A1E)),
        BackgroundTheme(key: "olive", english: "Olive", chinese: "橄榄", color: Color(hex: 0x3A3A12)),
        BackgroundTheme(key: "moss", english: "Moss", chinese: "苔藓", color: Color(hex: 0x2E4214)),
        BackgroundTheme(key: "forest", english: "Forest", chinese: "森林", color: Color(hex: 0x123222)),
        BackgroundTheme(key: "pine", english: "Pine", chinese: "松针", color: Color(hex: 0x0F3D2E)),
        BackgroundTheme(key: "emerald", english: "Emerald", chinese: "翡翠", color: Color(hex: 0x0B4A3A)),
        BackgroundTheme(key: "teal", english: "Teal", chinese: "青绿", color: Color(hex: 0x0D3537)),
        BackgroundTheme(key: "petrol", english: "Petrol", chinese: "石油蓝", color: Color(hex: 0x0B3F50)),
        BackgroundTheme(key: "slate", english: "Slate", chinese: "石板", color: Color(hex: 0x2A2F3A)),
        BackgroundTheme(key: "coal", english: "Coal", chinese: "炭黑", color: Color(hex: 0x222222)),
        BackgroundTheme(key: "sunshine", english: "Sunshine", chinese: "阳光", color: Color(hex: 0xF7C948)),
        BackgroundTheme(key: "tangerine", english: "Tangerine", chinese: "橘子", color: Color(hex: 0xF59A3B)),
        BackgroundTheme(key: "coral", english: "Coral", chinese: "珊瑚", color: Color(hex: 0xF4846F)),
        BackgroundTheme(key: "rose", english: "Rose", chinese: "玫瑰", color: Color(hex: 0xF29BC0)),
        BackgroundTheme(key: "lilac", english: "Lilac", chinese: "丁香", color: Color(hex: 0xC3A6F0)),
        BackgroundTheme(key: "sky", english: "Sky", chinese: "晴空", color: Color(hex: 0x7CC4F4)),
        BackgroundTheme(key: "mint", english: "Mint", chinese: "薄荷", color: Color(hex: 0x7FD8A9)),
        BackgroundTheme(key: "lime", english: "Lime", chinese: "青柠", color: Color(hex: 0xB8E05A)),
        BackgroundTheme(key: "paper", english: "Paper", chinese: "白纸", color: Color(hex: 0xF3EDDD)),
    ]
}

/// A colour swatch with its name; a ring marks the chosen one.
final class SwatchButton: Button {
    let swatch: Color
    let ink: Color
    var isChosen = false { didSet { if isChosen != oldValue { setNeedsDisplay() } } }

    init(name: String, color: Color, ink: Color) {
        swatch = color
        self.ink = ink
        super.init(name, kind: .secondary)
    }

    override func draw(_ canvas: Canvas) {
        let r = bounds.insetBy(isPressed ? 2 : 0, isPressed ? 2 : 0)
        canvas.fillRoundedRect(r, radius: cornerRadius, swatch.lighter(isPressed ? 0.02 : 0.06),
                               shadow: Shadow(blur: 4, offsetY: 2, color: Color(r: 0, g: 0, b: 0, a: 70)))
        canvas.strokeRoundedRect(r, radius: cornerRadius, width: isChosen ? 4 : 1.5,
                                 isChosen ? Theme.accent : ink.withAlpha(0.25))
        if isFocused {
            canvas.strokeRoundedRect(bounds.insetBy(-5, -5), radius: cornerRadius + 5, width: 3, Theme.text)
        }
        canvas.drawText(title, in: r.insetBy(6, 0), style: Theme.button.with(size: 18, color: ink),
                        fonts: UIEnvironment.fonts, wrap: false)
        if isChosen {
            canvas.fillCircle(center: Point(r.maxX - 18, r.minY + 18), radius: 8, Theme.accent)
        }
    }
}
