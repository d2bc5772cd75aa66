import Platform
import UI

/// Coins and credits (`kiosk.mode = credits`), and the state they keep: a coin is counted
/// and written at once; a game starts only when its credits can be paid (a paid game left
/// half-way resumes free); a finished game goes to "continue?" where the game allows it
/// (Beat Zombies), then to initials when the result makes the table, then to the menu,
/// never to the game's own "play again". Free play (the default) only counts coins.
final class CreditDesk {
    /// The coin box and credit meter (`Credits.swift`).
    private(set) var meter: CreditMeter
    /// Games whose current game is paid for and not over: they resume free.
    private(set) var paidGames: Set<String> = []
    /// The "continue?" screen while it shows, and the result that ends the game if declined.
    private var continuing: (scene: ContinueScene, result: GameResult)?

    init(store: StateStore, settings: Settings.Kiosk) {
        meter = CreditMeter(store: store, settings: settings)
    }

    /// New settings: the meter's prices and mode.
    func apply(_ settings: Settings.Kiosk, store: StateStore) {
        meter = CreditMeter(store: store, settings: settings)
    }

    var isCreditsMode: Bool { meter.mode == .credits }

    /// A coin or a charge on a copy of the meter, kept once it is done: its write may find
    /// the state partition full, and the screens that then follow (`onWritableChange`) read
    /// the meter, which must not be in the middle of a change (Swift traps on the overlap).
    private func onTheMeter<Result>(_ step: (inout CreditMeter) -> Result) -> Result {
        var working = meter
        let result = step(&working)
        meter = working
        return result
    }

    /// Credits mode with a state partition that takes no writes: coins would buy credits
    /// the books cannot keep, so the cabinet says it is out of order until it can write.
    func isOutOfOrder(_ store: StateStore) -> Bool { isCreditsMode && !store.isWritable }

    /// The menu's credit line, nil in free play.
    func creditLine(_ language: Language, store: StateStore) -> String? {
        guard isCreditsMode else { return nil }
        if isOutOfOrder(store) { return Self.outOfOrderLine(language) }
        let n = meter.credits
        if meter.canPlay {
            return language == .chinese ? "币 \(n) · 点一个游戏开始" : "Credits \(n) · tap a game"
        }
        return language == .chinese ? "请投币 · 币 \(n)" : "Insert coin · credits \(n)"
    }

    private static func outOfOrderLine(_ language: Language) -> String {
        language == .chinese ? "暂停服务 · 请联系工作人员" : "Out of order · call staff"
    }

    /// The attract banner's words in credits mode, nil in free play.
    func attractLine(_ language: Language, store: StateStore) -> String? {
        guard isCreditsMode else { return nil }
        if isOutOfOrder(store) { return Self.outOfOrderLine(language) }
        if meter.canPlay {
            return language == .chinese ? "币 \(meter.credits) · 触摸开始" : "Credits \(meter.credits) · touch to play"
        }
        return language == .chinese ? "请投币" : "Insert coin"
    }

    /// A coin dropped: counted on disk before anything else; the screens showing credits
    /// say so; in the attract mode it wakes the menu (someone is here).
    func coinInserted(in kiosk: Kiosk) {
        let store = kiosk.store
        guard onTheMeter({ $0.insertCoin(now: kiosk.now) }) == .counted else {
            Log.error("coin: refused (\(store.counter(CounterKey.coinsRefused)) since start): the state partition cannot be "
                + "written, so no credit was given; the screen says out of order")
            kiosk.sound.play(.mismatch, gain: 0.8, pan: 0)
            kiosk.stateWritabilityChanged()
            return
        }
        Log.info("coin: \(store.counter(CounterKey.coins)) since the last reset, credits \(meter.credits)"
            + (store.isWritable ? "" : " (in memory: the state partition cannot be written)"))
        kiosk.sound.play(.match, gain: 0.8, pan: 0)
        continuing?.scene.credits = meter.credits
        switch kiosk.mode {
        case .attract: kiosk.goHome()
        case .menu: kiosk.refreshMenu()
        default: break
        }
    }

    /// Pays for a game about to open; false when it can't start (the menu says why).
    func pay(for id: String, in kiosk: Kiosk) -> Bool {
        guard isCreditsMode, !paidGames.contains(id) else { return true }
        guard onTheMeter({ $0.chargePlay(now: kiosk.now) }) else {
            kiosk.shelf.menu.creditLine = creditLine(kiosk.language, store: kiosk.store)
            kiosk.shelf.menu.shakeCreditLine()
            return false
        }
        // A new paid game: never the finished one with its "play again" panel.
        kiosk.shelf.close(id)
        paidGames.insert(id)
        kiosk.refreshMenu()
        return true
    }

    /// In credits mode a finished game takes no input until the kiosk moves on.
    func isWaitingAfterPaidGame(_ mode: Kiosk.Mode) -> Bool {
        guard isCreditsMode, case .game(let id) = mode else { return false }
        return !paidGames.contains(id)
    }

    /// The paid game reported its end: "continue?", initials or the menu follow.
    func gameOver(_ id: String) { paidGames.remove(id) }

    /// What follows a finished paid game once its end has been seen (`HighScoreDesk`).
    func afterPaidGame(_ id: String, _ result: GameResult, in kiosk: Kiosk) {
        if let scene = kiosk.shelf.openGames[id], scene.canContinue {
            let prompt = ContinueScene(language: kiosk.language, creditsPerPlay: meter.creditsPerPlay,
                                       credits: meter.credits, now: kiosk.now, clock: { [weak kiosk] in kiosk?.now ?? 0 })
            prompt.onContinue = { [weak self, weak kiosk] in if let kiosk { self?.continueGame(id, in: kiosk) } }
            continuing = (prompt, result)
            kiosk.mode = .continuing(id)
            kiosk.show(prompt)
        } else {
            afterDeclinedContinue(id, result, in: kiosk)
        }
    }

    private func continueGame(_ id: String, in kiosk: Kiosk) {
        guard let scene = kiosk.shelf.openGames[id], onTheMeter({ $0.chargePlay(now: kiosk.now) }) else { return }
        Log.info("credits: \(id) continued (credits left \(meter.credits))")
        continuing = nil
        paidGames.insert(id)
        kiosk.mode = .game(id)
        kiosk.idle.enter(.game, now: kiosk.now)
        kiosk.show(scene)
        scene.continueGame()
    }

    var continueDeadline: Double? { continuing?.scene.deadline }

    func tick(in kiosk: Kiosk) {
        guard let (prompt, result) = continuing, prompt.isExpired(now: kiosk.now), case .continuing(let id) = kiosk.mode
        else { return }
        continuing = nil
        afterDeclinedContinue(id, result, in: kiosk)
    }

    /// Leaving the "continue?" screen some other way: the game is over.
    func leaveContinue(_ id: String, in kiosk: Kiosk) {
        continuing = nil
        endPaidGame(id, in: kiosk)
    }

    /// The game is over for good: its table if the result makes it, else the menu.
    private func afterDeclinedContinue(_ id: String, _ result: GameResult, in kiosk: Kiosk) {
        if let game = kiosk.shelf.catalog.game(id),
           kiosk.store.qualifiesForHighScores(result.variantKey, score: result.score, lowerIsBetter: game.best.lowerIsBetter) {
            kiosk.scores.askForInitials(id, result, in: kiosk)
        } else {
            endPaidGame(id, in: kiosk)
        }
    }

    /// Back to the menu; the finished scene is dropped so the next game is a new, paid one.
    func endPaidGame(_ id: String, in kiosk: Kiosk) {
        kiosk.shelf.close(id)
        paidGames.remove(id)
        if kiosk.mode != .menu { kiosk.goHome() }
    }
}
