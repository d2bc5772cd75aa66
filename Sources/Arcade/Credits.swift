import Platform

/// Free play, or games cost credits (`kiosk.mode`).
public enum PlayMode: String, Sendable, CaseIterable {
    case free
    case credits
}

/// The coin box and the credit meter, kept in the state store's counters:
/// `coins` (every coin since the last bookkeeping reset), `credits.bought`,
/// `credits.used`, and the meter itself, `credits.balance` and `credits.coins_pending`
/// (coins towards the next credit). A coin is money: each one is written and fsync'd
/// before `insertCoin` returns, so it survives a power cut the moment after it drops.
struct CreditMeter {
    let store: StateStore
    var mode: PlayMode
    var creditsPerPlay: Int
    var coinsPerCredit: Int

    static let balanceKey = "credits.balance"
    static let pendingKey = "credits.coins_pending"

    init(store: StateStore, settings: Settings.Kiosk) {
        self.store = store
        mode = settings.playMode
        creditsPerPlay = settings.creditsPerPlay
        coinsPerCredit = settings.coinsPerCredit
    }

    var credits: Int { store.counter(Self.balanceKey) }

    /// Whether a game may start now.
    var canPlay: Bool { mode == .free || credits >= creditsPerPlay }

    /// One coin in: counted, and a credit when enough have dropped (in free play coins
    /// are only counted). Written to disk before it returns.
    mutating func insertCoin(now: Double) {
        store.increment("coins", now: now)
        if mode == .credits {
            let pending = store.counter(Self.pendingKey) + 1
            if pending >= coinsPerCredit {
                store.setCounter(Self.pendingKey, 0, now: now)
                store.setCounter(Self.balanceKey, credits + 1, now: now)
                store.increment("credits.bought", now: now)
            } else {
                store.setCounter(Self.pendingKey, pending, now: now)
            }
        }
        store.flush(now: now)
    }

    /// Takes a play's credits; false (and nothing taken) when there aren't enough. Free
    /// play costs nothing.
    mutating func chargePlay(now: Double) -> Bool {
        guard mode == .credits else { return true }
        guard credits >= creditsPerPlay else { return false }
        store.setCounter(Self.balanceKey, credits - creditsPerPlay, now: now)
        store.increment("credits.used", by: creditsPerPlay, now: now)
        store.flush(now: now)
        return true
    }
}
