import Platform
import UI

/// The kiosk's side of the high-score tables: a finished game that makes its table asks
/// for initials (after a moment, so the player sees the game end), then shows the table
/// with the new line lit, then goes back to the game's end-of-game panel. Leaving the
/// initials screen any other way (idle, operator) keeps what was typed.
extension Kiosk {
    /// Seconds between the end of a game and the initials screen.
    static let initialsDelay = 1.5

    /// A game scene reported a result (`GameScene.reportResult`).
    func gameFinished(_ id: String, _ result: GameResult) {
        guard let game = catalog.game(id), game.best.variant(result.variantKey) != nil else {
            Log.warning("high scores: \(id) reported a result for unknown table '\(result.variantKey)'")
            return
        }
        if isCreditsMode {
            // The paid game is over: "continue?", initials or the menu follow.
            paidGames.remove(id)
        } else if !store.qualifiesForHighScores(result.variantKey, score: result.score,
                                                lowerIsBetter: game.best.lowerIsBetter) {
            return
        }
        pendingResult = (id, result, now + Kiosk.initialsDelay)
    }

    /// How a table screen reads a game's tables.
    func tableReader(_ game: GameDescriptor) -> (ScoreVariant) -> HighScoreTable {
        let lowerIsBetter = game.best.lowerIsBetter
        return { [store] variant in store.highScores(variant.key, lowerIsBetter: lowerIsBetter) }
    }

    var highScoreDeadline: Double? {
        [pendingResult?.due, initials?.scene.entry.deadline].compactMap { $0 }.min()
    }

    func tickHighScores(now: Double) {
        if let pending = pendingResult, now >= pending.due {
            pendingResult = nil
            if mode == .game(pending.game) {
                if isCreditsMode { afterPaidGame(pending.game, pending.result) } else { askForInitials(pending.game, pending.result) }
            }
        }
        if let scene = initials?.scene, scene.entry.isExpired(now: now) { scene.finish() }
    }

    func askForInitials(_ id: String, _ result: GameResult) {
        guard let game = catalog.game(id), let variant = game.best.variant(result.variantKey),
              let rank = store.highScores(variant.key, lowerIsBetter: game.best.lowerIsBetter).rank(for: result.score)
        else { return }
        let name = [game.name(language), variant.name(language)].filter { !$0.isEmpty }.joined(separator: " ")
        let place = language == .chinese ? "第 \(rank + 1) 名" : "No. \(rank + 1)"
        let scene = InitialsScene(detail: "\(name) · \(result.score) · \(place)", language: language, now: now,
                                  clock: { [weak self] in self?.now ?? 0 })
        scene.onDone = { [weak self] initials in
            guard let self else { return }
            let rank = self.enter(id, result, initials: initials)
            self.showTable(id, variantKey: result.variantKey, highlight: rank)
        }
        initials = (scene, result)
        mode = .initials(id)
        show(scene)
    }

    /// Writes the entry now (a table entry is worth an fsync) and closes the initials screen.
    @discardableResult
    private func enter(_ id: String, _ result: GameResult, initials: String) -> Int? {
        self.initials = nil
        guard let game = catalog.game(id) else { return nil }
        let entry = HighScoreEntry(score: result.score, initials: initials, date: today())
        let rank = store.addHighScore(result.variantKey, entry, lowerIsBetter: game.best.lowerIsBetter, now: now)
        store.flush(now: now)
        Log.info("high scores: \(initials) \(result.score) in \(result.variantKey) at place \(rank.map { $0 + 1 } ?? 0)")
        return rank
    }

    /// Leaving the initials screen some other way: the entry stands as typed.
    func takeInitials() {
        guard let (scene, result) = initials else { return }
        scene.onDone = nil
        if case .initials(let id) = mode { enter(id, result, initials: scene.initials) }
        initials = nil
    }

    /// The table after initials: OK goes back to the finished game.
    private func showTable(_ id: String, variantKey: String, highlight: Int?) {
        guard let game = catalog.game(id) else { return }
        let scene = HighScoreScene(game: game, language: language, variantKey: variantKey, highlightRank: highlight,
                                   interactive: true, doneTitle: language == .chinese ? "确定" : "OK",
                                   tables: tableReader(game))
        scene.onDone = { [weak self] in
            guard let self else { return }
            if self.isCreditsMode { self.endPaidGame(id) } else { self.backToGame(id) }
        }
        mode = .highScores(id)
        show(scene)
    }

    private func backToGame(_ id: String) {
        guard let scene = openGames[id] else { return goHome() }
        mode = .game(id)
        idle.enter(.game, now: now)
        show(scene)
    }

    /// The menu tile's trophy: the game's tables, the variant in play first.
    func showHighScores(game id: String) {
        guard let game = catalog.game(id) else { return }
        let scene = HighScoreScene(game: game, language: language, variantKey: game.best.currentKey(storage, language, settings.gameSettings),
                                   interactive: true, tables: tableReader(game))
        scene.onDone = { [weak self] in self?.goHome() }
        scene.onHome = { [weak self] in self?.goHome() }
        mode = .highScores(id)
        idle.enter(.game, now: now)
        show(scene)
    }

    /// The attract rotation: each enabled game, then its table when it has entries (the
    /// variant in play, or the first with any).
    func attractItems() -> [(id: String, table: (game: GameDescriptor, variant: ScoreVariant)?)] {
        var items: [(id: String, table: (game: GameDescriptor, variant: ScoreVariant)?)] = []
        for game in catalog.games where settings.kiosk.enabledGames.contains(game.id) {
            items.append((game.id, nil))
            let current = game.best.currentKey(storage, language, settings.gameSettings)
            let filled = game.best.variants.filter {
                !store.highScores($0.key, lowerIsBetter: game.best.lowerIsBetter).entries.isEmpty
            }
            if let variant = filled.first(where: { $0.key == current }) ?? filled.first {
                items.append((game.id, (game, variant)))
            }
        }
        return items
    }
}
