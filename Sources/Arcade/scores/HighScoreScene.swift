import Graphics
import Input
import UI

/// A game's high-score tables: one variant's top ten at a time (rank, initials, result,
/// date), the new entry highlighted. Opened from the menu tile's trophy (variant tabs and
/// a back button), after initials (an OK button), and in the attract rotation (no buttons:
/// any touch goes to the menu).
final class HighScoreScene: Scene {
    let game: GameDescriptor
    private let tables: (ScoreVariant) -> HighScoreTable
    private let language: Language
    private(set) var variantIndex: Int
    /// The row to highlight in the shown variant (a new entry).
    private let highlight: (variantKey: String, rank: Int)?
    private let titleLabel = Label("", style: Theme.heading)
    private let tabs: TabBar?
    let doneButton: Button?
    private let rows: DrawingView
    var onDone: (() -> Void)?

    /// `interactive` adds the variant tabs and a button (its title `doneTitle`).
    init(game: GameDescriptor, language: Language, variantKey: String?, highlightRank: Int? = nil,
         interactive: Bool, doneTitle: String? = nil, tables: @escaping (ScoreVariant) -> HighScoreTable) {
        self.game = game
        self.tables = tables
        self.language = language
        let variants = game.best.variants
        variantIndex = variantKey.flatMap { key in variants.firstIndex { $0.key == key } } ?? 0
        highlight = highlightRank.flatMap { rank in variantKey.map { ($0, rank) } }
        tabs = interactive && variants.count > 1 ? TabBar(titles: variants.map { $0.name(language) }) : nil
        doneButton = interactive ? Button(doneTitle ?? (language == .chinese ? "返回" : "Back"), kind: .primary) : nil
        rows = DrawingView { _, _ in }
        super.init()
        backgroundColor = Theme.background
        // One line, shrunk on a narrow screen: "Guess Picture high scores" wrapped into the tabs.
        titleLabel.shrinksToFit = true
        [titleLabel, rows].forEach(addSubview)
        if let tabs {
            addSubview(tabs)
            tabs.selectedIndex = variantIndex
            tabs.onSelect = { [weak self] i in self?.show(variant: i) }
        }
        if let doneButton {
            addSubview(doneButton)
            doneButton.action = { [weak self] in self?.onDone?() }
        }
        rows.drawing = { [weak self] canvas, rect in self?.drawRows(canvas, rect) }
        show(variant: variantIndex)
        // Sticks and keys: confirm takes the button at once.
        focus(doneButton)
    }

    var variant: ScoreVariant { game.best.variants[variantIndex] }
    var table: HighScoreTable { tables(variant) }

    func show(variant index: Int) {
        guard game.best.variants.indices.contains(index) else { return }
        variantIndex = index
        tabs?.selectedIndex = index
        let name = variant.name(language)
        let heading = language == .chinese ? "🏆 \(game.name(language)) 排行榜" : "🏆 \(game.name(language)) high scores"
        titleLabel.text = name.isEmpty || tabs != nil ? heading : "\(heading) · \(name)"
        rows.setNeedsDisplay()
    }

    /// Memory counts moves; the others points.
    private func resultText(_ score: Int) -> String {
        guard game.best.lowerIsBetter else { return String(score) }
        return language == .chinese ? "\(score) 步" : "\(score) moves"
    }

    private func drawRows(_ canvas: Canvas, _ rect: Rect) {
        let fonts = UIEnvironment.fonts
        let entries = table.entries
        let rowHeight = rect.height / Double(HighScoreTable.capacity)
        let size = min(24, rowHeight * 0.62)
        guard !entries.isEmpty else {
            canvas.drawText(language == .chinese ? "还没有记录：来做第一名！" : "No scores yet: be the first!",
                            in: rect, style: Theme.body.with(color: Theme.textDim), fonts: fonts)
            return
        }
        let columns = [0.0, 0.16, 0.38, 0.68]
        for (i, entry) in entries.enumerated() {
            let row = Rect(rect.minX, rect.minY + Double(i) * rowHeight, rect.width, rowHeight)
            let isNew = highlight.map { $0.variantKey == variant.key && $0.rank == i } ?? false
            if isNew {
                canvas.fillRoundedRect(row.insetBy(0, 1), radius: 8, Theme.accent)
            } else if i % 2 == 0 {
                canvas.fillRoundedRect(row.insetBy(0, 1), radius: 8, Theme.surface)
            }
            let color = isNew ? Theme.accentText : (i < 3 ? Theme.accent : Theme.text)
            let texts = ["\(i + 1)", entry.initials, resultText(entry.score), entry.date]
            for (c, text) in texts.enumerated() {
                let x = row.minX + row.width * columns[c] + 12
                let end = c + 1 < columns.count ? row.minX + row.width * columns[c + 1] : row.maxX
                let style = TextStyle(size: c == 3 ? size * 0.8 : size, weight: c == 3 ? .regular : .bold,
                                      color: c == 3 && !isNew ? Theme.textDim : color, alignment: .left)
                canvas.drawText(text, in: Rect(x, row.minY, end - x - 12, row.height), style: style, fonts: fonts, wrap: false)
            }
        }
    }

    override func handleBack() { if let onDone { onDone() } else { onHome?() } }

    override func handleKey(_ key: Key) -> Bool {
        guard tabs != nil else { return false }
        switch key {
        case .left: show(variant: max(0, variantIndex - 1))
        case .right: show(variant: min(game.best.variants.count - 1, variantIndex + 1))
        default: return false
        }
        return true
    }

    override func layout() {
        let portrait = size.height > size.width
        var y = portrait ? 40.0 : 12
        titleLabel.frame = Rect(16, y, size.width - 32, 44)
        y = titleLabel.frame.maxY + 6
        if let tabs {
            tabs.frame = Rect(16, y, size.width - 32, 48)
            y = tabs.frame.maxY + 8
        }
        // The attract mode's banner takes the bottom 90 points; the button 76.
        let bottom = size.height - (doneButton == nil ? 96 : 80)
        let width = min(size.width - 32, 640)
        rows.frame = Rect((size.width - width) / 2, y, width, min(bottom - y, portrait ? 520 : 400))
        doneButton?.frame = Rect(center: Point(size.width / 2, size.height - 42), size: Size(220, 60))
    }
}
