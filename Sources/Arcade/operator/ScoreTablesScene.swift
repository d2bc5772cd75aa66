import Graphics
import Input
import UI

/// The operator's page for the high-score tables: one row per game with its variant
/// (the one in play first; ◀ ▶ pick another), how many entries it holds and Clear; a last
/// row clears every table.
/// Each clear asks first.
public final class ScoreTablesScene: OperatorPage {
    /// A game's tables as the page lists them.
    public struct Game {
        public var name: String
        public var variants: [(key: String, name: String)]
        /// The index of the variant in play (2048's size, Beat Zombies' difficulty).
        public var inPlay: Int
        public init(name: String, variants: [(key: String, name: String)], inPlay: Int = 0) {
            self.name = name
            self.variants = variants
            self.inPlay = inPlay
        }
    }

    private var chosen: [Int]

    init(controls: OperatorControls) {
        chosen = controls.scoreTables.map(\.inPlay)
        super.init(controls: controls, title: \.highScores)
        let words = self.words
        for (g, game) in controls.scoreTables.enumerated() {
            let previous = Button("◀", kind: .secondary) { [weak self] in self?.step(g, -1) }
            let next = Button("▶", kind: .secondary) { [weak self] in self?.step(g, 1) }
            let clear = Button(words.clear, kind: .secondary)
            clear.action = { [weak self] in self?.confirmClear(game: g) }
            let row = SettingRow(name: game.name, buttons: game.variants.count > 1 ? [previous, next, clear] : [clear])
            add(row) { [weak self, weak row] in
                guard let self, let row else { return }
                let variant = self.controls.scoreTables[g].variants[self.chosen[g]]
                let count = self.controls.highScoreCount(variant.key)
                row.valueLabel.text = [variant.name, words.entries(count)].filter { !$0.isEmpty }.joined(separator: " · ")
            }
        }
        let clearAll = Button(words.clearAll, kind: .secondary)
        clearAll.action = { [weak self] in
            self?.confirm(words.clearAllQuestion, message: words.cannotUndo, action: words.clearAll) { [weak self] in
                self?.controls.clearAllHighScores()
            }
        }
        add(SettingRow(name: words.allTables, buttons: [clearAll]))
        refresh()
    }

    private func step(_ game: Int, _ by: Int) {
        let count = controls.scoreTables[game].variants.count
        chosen[game] = (chosen[game] + by + count) % count
        refresh()
    }

    private func confirmClear(game g: Int) {
        let table = controls.scoreTables[g]
        let variant = table.variants[chosen[g]]
        let name = [table.name, variant.name].filter { !$0.isEmpty }.joined(separator: " ")
        confirm(words.clearQuestion(name), message: words.cannotUndo, action: words.clear) { [weak self] in
            self?.controls.clearHighScores(variant.key)
        }
    }
}
