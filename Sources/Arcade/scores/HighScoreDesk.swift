import Platform
import UI

/// The high-score tables' flow, and the state it keeps: a finished game that makes its
/// table asks for initials (after a moment, so the player sees the game end), then shows
/// the table with the new line lit, then goes back to the game's end-of-game panel.
/// Leaving the initials screen any other way (idle, operator) keeps what was typed.
final class HighScoreDesk {
    /// Seconds between the end of a game and the initials screen.
    static let initialsDelay = 1.5

    /// A finished game waiting to ask for initials.
    private var pendingResult: (game: String, result: GameResult, due: Double)?
    /// The initials screen while it shows, and the result it is for.
    private var initials: (scene: InitialsScene, result: GameResult)?
    /// The date on a new high-score entry (tests fix it); the kiosk sets the store's wall
    /// time, which never runs backwards.
    var today: () -> String = { WallClock.now().isoDate }

    /// A game scene reported a result (`GameScene.reportResult`).
    func gameFinished(_ id: String, _ result: GameResult, in kiosk: Kiosk) {
        guard let game = kiosk.shelf.catalog.game(id), game.best.variant(result.variantKey) != nil else {
            Log.warning("high scores: \(id) reported a result for unknown table '\(result.variantKey)'")
            return
        }
        if kiosk.coins.isCreditsMode {
            kiosk.coins.gameOver(id)
        } else if !kiosk.store.qualifiesForHighScores(result.variantKey, score: result.score,
                                                      lowerIsBetter: game.best.lowerIsBetter) {
            return
        }
        pendingResult = (id, result, kiosk.now + HighScoreDesk.initialsDelay)
    }

    /// How a table screen reads a game's tables.
    static func tableReader(_ game: GameDescriptor, store: StateStore) -> (ScoreVariant) -> HighScoreTable {
        let lowerIsBetter = game.best.lowerIsBetter
        return { [store] variant in store.highScores(variant.key, lowerIsBetter: lowerIsBetter) }
    }

    var deadline: Double? {
        [pendingResult?.due, initials?.scene.entry.deadline].compactMap { $0 }.min()
    }

    func tick(in kiosk: Kiosk) {
        if let pending = pendingResult, kiosk.now >= pending.due {
            pendingResult = nil
            if kiosk.mode == .game(pending.game) {
                if kiosk.coins.isCreditsMode {
                    kiosk.coins.afterPaidGame(pending.game, pending.result, in: kiosk)
                } else {
                    askForInitials(pending.game, pending.result, in: kiosk)
                }
            }
        }
        if let scene = initials?.scene, scene.entry.isExpired(now: kiosk.now) { scene.finish() }
    }

    func askForInitials(_ id: String, _ result: GameResult, in kiosk: Kiosk) {
        let language = kiosk.language
        guard let game = kiosk.shelf.catalog.game(id), let variant = game.best.variant(result.variantKey),
              let rank = kiosk.store.highScores(variant.key, lowerIsBetter: game.best.lowerIsBetter).rank(for: result.score)
        else { return }
        let name = [game.name(language), variant.name(language)].filter { !$0.isEmpty }.joined(separator: " ")
        let place = language == .chinese ? "第 \(rank + 1) 名" : "No. \(rank + 1)"
        let scene = InitialsScene(detail: "\(name) · \(result.score) · \(place)", language: language, now: kiosk.now,
                                  clock: { [weak kiosk] in kiosk?.now ?? 0 })
        scene.onDone = { [weak self, weak kiosk] initials in
            guard let self, let kiosk else { return }
            let rank = self.enter(id, result, initials: initials, in: kiosk)
            self.showTable(id, variantKey: result.variantKey, highlight: rank, in: kiosk)
        }
        initials = (scene, result)
        kiosk.mode = .initials(id)
        kiosk.show(scene)
    }

    /// Writes the entry now (a table entry is worth an fsync; the game's best goes in the
    /// same file, its plays later) and closes the initials screen.
    @discardableResult
    private func enter(_ id: String, _ result: GameResult, initials: String, in kiosk: Kiosk) -> Int? {
        self.initials = nil
        guard let game = kiosk.shelf.catalog.game(id) else { return nil }
        let entry = HighScoreEntry(score: result.score, initials: initials, date: today())
        let rank = kiosk.store.addHighScore(result.variantKey, entry, lowerIsBetter: game.best.lowerIsBetter, now: kiosk.now)
        kiosk.store.flush(.scores, now: kiosk.now)
        Log.info("high scores: \(initials) \(result.score) in \(result.variantKey) at place \(rank.map { $0 + 1 } ?? 0)")
        return rank
    }

    /// Leaving the initials screen some other way: the entry stands as typed.
    func takeInitials(in kiosk: Kiosk) {
        guard let (scene, result) = initials else { return }
        scene.onDone = nil
        if case .initials(let id) = kiosk.mode { enter(id, result, initials: scene.initials, in: kiosk) }
        initials = nil
    }

    /// The table after initials: OK goes back to the finished game.
    private func showTable(_ id: String, variantKey: String, highlight: Int?, in kiosk: Kiosk) {
        guard let game = kiosk.shelf.catalog.game(id) else { return }
        let language = kiosk.language
        let scene = HighScoreScene(game: game, language: language, variantKey: variantKey, highlightRank: highlight,
                                   interactive: true, doneTitle: language == .chinese ? "确定" : "OK",
                                   tables: Self.tableReader(game, store: kiosk.store))
        scene.onDone = { [weak kiosk] in
            guard let kiosk else { return }
            if kiosk.coins.isCreditsMode { kiosk.coins.endPaidGame(id, in: kiosk) } else { kiosk.backToGame(id) }
        }
        kiosk.mode = .highScores(id)
        kiosk.show(scene)
    }

    /// The menu tile's trophy: the game's tables, the variant in play first.
    func showHighScores(game id: String, in kiosk: Kiosk) {
        guard let game = kiosk.shelf.catalog.game(id) else { return }
        let current = game.best.currentKey(kiosk.shelf.storage, kiosk.language, kiosk.settings.gameSettings)
        let scene = HighScoreScene(game: game, language: kiosk.language, variantKey: current,
                                   interactive: true, tables: Self.tableReader(game, store: kiosk.store))
        scene.onDone = { [weak kiosk] in kiosk?.goHome() }
        scene.onHome = { [weak kiosk] in kiosk?.goHome() }
        kiosk.mode = .highScores(id)
        kiosk.idle.enter(.game, now: kiosk.now)
        kiosk.show(scene)
    }
}
