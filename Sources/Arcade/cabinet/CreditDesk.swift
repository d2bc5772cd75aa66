import Platform
import UI

/// The kiosk's side of coins and credits (`kiosk.mode = credits`): a coin is counted and
/// written at once; a game starts only when its credits can be paid (a paid game left
/// half-way resumes free); a finished game goes to "continue?" where the game allows it
/// (Beat Zombies), then to initials when the result makes the table, then to the menu,
/// never to the game's own "play again". Free play (the default) only counts coins.
extension Kiosk {
    var isCreditsMode: Bool { settings.kiosk.playMode == .credits }

    /// Credits mode with a state partition that takes no writes: coins would buy credits
    /// the books cannot keep, so the cabinet says it is out of order until it can write.
    var isOutOfOrder: Bool { isCreditsMode && !store.isWritable }

    /// The menu's credit line, nil in free play.
    var creditLine: String? {
        guard isCreditsMode else { return nil }
        if isOutOfOrder { return outOfOrderLine }
        let n = creditMeter.credits
        if creditMeter.canPlay {
            return language == .chinese ? "币 \(n) · 点一个游戏开始" : "Credits \(n) · tap a game"
        }
        return language == .chinese ? "请投币 · 币 \(n)" : "Insert coin · credits \(n)"
    }

    private var outOfOrderLine: String {
        language == .chinese ? "暂停服务 · 请联系工作人员" : "Out of order · call staff"
    }

    /// The attract banner's words in credits mode, nil in free play.
    var attractLine: String? {
        guard isCreditsMode else { return nil }
        if isOutOfOrder { return outOfOrderLine }
        if creditMeter.canPlay {
            return language == .chinese ? "币 \(creditMeter.credits) · 触摸开始" : "Credits \(creditMeter.credits) · touch to play"
        }
        return language == .chinese ? "请投币" : "Insert coin"
    }

    /// A coin dropped: counted on disk before anything else; the screens showing credits
    /// say so; in the attract mode it wakes the menu (someone is here).
    func coinInserted() {
        guard creditMeter.insertCoin(now: now) == .counted else {
            Log.error("coin: refused (\(store.counter(CounterKey.coinsRefused)) since start): the state partition cannot be "
                + "written, so no credit was given; the screen says out of order")
            sound.play(.mismatch, gain: 0.8, pan: 0)
            stateWritabilityChanged()
            return
        }
        Log.info("coin: \(store.counter(CounterKey.coins)) since the last reset, credits \(creditMeter.credits)"
            + (store.isWritable ? "" : " (in memory: the state partition cannot be written)"))
        sound.play(.match, gain: 0.8, pan: 0)
        continuing?.scene.credits = creditMeter.credits
        switch mode {
        case .attract: goHome()
        case .menu: refreshMenu()
        default: break
        }
    }

    /// The state partition stopped (or started again) taking writes: the screens that say
    /// so follow at once.
    func stateWritabilityChanged() {
        if mode == .menu { refreshMenu() }
        (screen.scene as? OperatorScene)?.refresh()
    }

    /// Pays for a game about to open; false when it can't start (the menu says why).
    func payForGame(_ id: String) -> Bool {
        guard isCreditsMode, !paidGames.contains(id) else { return true }
        guard creditMeter.chargePlay(now: now) else {
            menu.creditLine = creditLine
            menu.shakeCreditLine()
            return false
        }
        // A new paid game: never the finished one with its "play again" panel.
        openGames[id] = nil
        paidGames.insert(id)
        refreshMenu()
        return true
    }

    /// In credits mode a finished game takes no input until the kiosk moves on.
    var isWaitingAfterPaidGame: Bool {
        guard isCreditsMode, case .game(let id) = mode else { return false }
        return !paidGames.contains(id)
    }

    /// What follows a finished paid game once its end has been seen (`HighScoreFlow`).
    func afterPaidGame(_ id: String, _ result: GameResult) {
        if let scene = openGames[id], scene.canContinue {
            let prompt = ContinueScene(language: language, creditsPerPlay: creditMeter.creditsPerPlay,
                                       credits: creditMeter.credits, now: now, clock: { [weak self] in self?.now ?? 0 })
            prompt.onContinue = { [weak self] in self?.continueGame(id) }
            continuing = (prompt, result)
            mode = .continuing(id)
            show(prompt)
        } else {
            afterDeclinedContinue(id, result)
        }
    }

    private func continueGame(_ id: String) {
        guard let scene = openGames[id], creditMeter.chargePlay(now: now) else { return }
        Log.info("credits: \(id) continued (credits left \(creditMeter.credits))")
        continuing = nil
        paidGames.insert(id)
        mode = .game(id)
        idle.enter(.game, now: now)
        show(scene)
        scene.continueGame()
    }

    func tickContinue(now: Double) {
        guard let (prompt, result) = continuing, prompt.isExpired(now: now), case .continuing(let id) = mode else { return }
        continuing = nil
        afterDeclinedContinue(id, result)
    }

    /// The game is over for good: its table if the result makes it, else the menu.
    private func afterDeclinedContinue(_ id: String, _ result: GameResult) {
        if let game = catalog.game(id),
           store.qualifiesForHighScores(result.variantKey, score: result.score, lowerIsBetter: game.best.lowerIsBetter) {
            askForInitials(id, result)
        } else {
            endPaidGame(id)
        }
    }

    /// Back to the menu; the finished scene is dropped so the next game is a new, paid one.
    func endPaidGame(_ id: String) {
        openGames[id] = nil
        paidGames.remove(id)
        if mode != .menu { goHome() }
    }
}
