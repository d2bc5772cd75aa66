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

    var credits: Int { store.counter(CounterKey.creditBalance) }

    /// Whether a game may start now.
    var canPlay: Bool { mode == .free || credits >= creditsPerPlay }

    enum CoinOutcome: Equatable {
        /// On disk (and, in credits mode, on the meter).
        case counted
        /// Credits mode with a state partition that cannot be written: no credit, so no
        /// play is given for money the books cannot show; counted as refused in memory.
        case refused
    }

    /// One coin in: counted, and a credit when enough have dropped (in free play coins
    /// are only counted). Written to disk before it returns; in credits mode a coin that
    /// could not be written buys nothing (`CoinOutcome.refused`).
    @discardableResult
    mutating func insertCoin(now: Double) -> CoinOutcome {
        let before = [CounterKey.coins, CounterKey.coinsPending, CounterKey.creditBalance, CounterKey.creditsBought]
            .map { ($0, store.counter($0)) }
        store.increment(CounterKey.coins, now: now)
        if mode == .credits {
            let pending = StateStore.adding(store.counter(CounterKey.coinsPending), 1)
            if pending >= coinsPerCredit {
                store.setCounter(CounterKey.coinsPending, 0, now: now)
                store.setCounter(CounterKey.creditBalance, StateStore.adding(credits, 1), now: now)
                store.increment(CounterKey.creditsBought, now: now)
            } else {
                store.setCounter(CounterKey.coinsPending, pending, now: now)
            }
        }
        store.flush(.counters, now: now)
        guard mode == .credits, !store.isWritable else { return .counted }
        for (key, value) in before { store.setCounter(key, value, now: now) }
        store.increment(CounterKey.coinsRefused, now: now)
        return .refused
    }

    /// Takes a play's credits; false (and nothing taken) when there aren't enough. Free
    /// play costs nothing.
    mutating func chargePlay(now: Double) -> Bool {
        guard mode == .credits else { return true }
        guard credits >= creditsPerPlay else { return false }
        store.setCounter(CounterKey.creditBalance, credits - creditsPerPlay, now: now)
        store.increment(CounterKey.creditsUsed, by: creditsPerPlay, now: now)
        store.flush(.counters, now: now)
        return true
    }
}
