import Graphics
import Input
import UI

/// The operator's page for the high-score tables: one row per game with its variant
/// (◀ ▶ pick one), how many entries it holds and Clear; a last row clears every table.
/// Each clear asks first.
public final class ScoreTablesScene: Scene {
    /// A game's tables as the page lists them.
    public struct Game {
        public var name: String
        public var variants: [(key: String, name: String)]
        public init(name: String, variants: [(key: String, name: String)]) {
            self.name = name
            self.variants = variants
        }
    }

    let controls: OperatorControls
    var onClose: (() -> Void)?
    private let language: Language
    private let titleLabel = Label("", style: Theme.heading)
    private let close: Button
    private var rows: [SettingRow] = []
    private var chosen: [Int]
    private var refreshers: [() -> Void] = []

    init(controls: OperatorControls) {
        self.controls = controls
        language = controls.language
        let words = OperatorWords(language)
        close = Button(words.done, kind: .primary)
        chosen = Array(repeating: 0, count: controls.scoreTables.count)
        super.init()
        backgroundColor = Theme.background
        titleLabel.text = words.highScores
        [titleLabel, close].forEach(addSubview)
        close.action = { [weak self] in self?.onClose?() }
        for (g, game) in controls.scoreTables.enumerated() {
            let previous = Button("◀", kind: .secondary) { [weak self] in self?.step(g, -1) }
            let next = Button("▶", kind: .secondary) { [weak self] in self?.step(g, 1) }
            let clear = Button(words.clear, kind: .secondary)
            clear.action = { [weak self] in self?.confirmClear(game: g) }
            let row = SettingRow(name: game.name, buttons: game.variants.count > 1 ? [previous, next, clear] : [clear])
            refreshers.append { [weak self, weak row] in
                guard let self, let row else { return }
                let variant = self.controls.scoreTables[g].variants[self.chosen[g]]
                let count = self.controls.highScoreCount(variant.key)
                row.valueLabel.text = [variant.name, words.entries(count)].filter { !$0.isEmpty }.joined(separator: " · ")
            }
            rows.append(row)
            addSubview(row)
        }
        let clearAll = Button(words.clearAll, kind: .secondary)
        clearAll.action = { [weak self] in
            guard let self else { return }
            Dialog(title: words.clearAllQuestion, message: words.cannotUndo, buttons: [
                (words.clearAll, .primary, { [weak self] in self?.controls.clearAllHighScores(); self?.refresh() }),
                (words.cancel, .secondary, {}),
            ]).present(on: self)
        }
        let allRow = SettingRow(name: words.allTables, buttons: [clearAll])
        rows.append(allRow)
        addSubview(allRow)
        refresh()
    }

    private func step(_ game: Int, _ by: Int) {
        let count = controls.scoreTables[game].variants.count
        chosen[game] = (chosen[game] + by + count) % count
        refresh()
    }

    private func confirmClear(game g: Int) {
        let words = OperatorWords(language)
        let table = controls.scoreTables[g]
        let variant = table.variants[chosen[g]]
        let name = [table.name, variant.name].filter { !$0.isEmpty }.joined(separator: " ")
        Dialog(title: words.clearQuestion(name), message: words.cannotUndo, buttons: [
            (words.clear, .primary, { [weak self] in self?.controls.clearHighScores(variant.key); self?.refresh() }),
            (words.cancel, .secondary, {}),
        ]).present(on: self)
    }

    func refresh() { refreshers.forEach { $0() } }

    public override func handleBack() { onClose?() }

    public override func layout() {
        titleLabel.frame = Rect(24, 14, size.width - 48 - 140, 52)
        close.frame = Rect(size.width - 136, 14, 120, 52)
        var y = 82.0
        for row in rows {
            row.frame = Rect(24, y, size.width - 48, 56)
            y += 64
        }
    }
}
