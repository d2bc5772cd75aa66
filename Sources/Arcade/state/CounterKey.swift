/// The names of the state store's counters (`counters` file), defined once for the store,
/// the credit meter, the books, the PIN pad and the metrics. An operator's spreadsheet and
/// a fleet's dashboards read these names: changing one is a breaking change.
enum CounterKey {
    /// Every coin since the last reset of the books.
    static let coins = "coins"
    /// Coins the kiosk refused because it could not record them (state not writable).
    static let coinsRefused = "coins_refused"
    static let creditsBought = "credits.bought"
    static let creditsUsed = "credits.used"
    /// The credit meter: the players' money, kept through a reset of the books.
    static let creditBalance = "credits.balance"
    /// Coins towards the next credit.
    static let coinsPending = "credits.coins_pending"
    static let uptime = "uptime_seconds"
    static let starts = "starts"
    static let crashes = "crashes"
    static let watchdogRestarts = "watchdog_restarts"
    /// When the books were last reset (epoch seconds).
    static let booksResetAt = "bookkeeping.reset_at"
    /// The latest wall-clock time this cabinet saw (epoch seconds; `StateStore.wallTime`).
    static let lastKnownTime = "clock.last_known"
    /// The PIN pad's guard against guessing (`PINEntry.Persisted`), kept through restarts.
    static let pinFailures = "operator_pin.failures"
    static let pinLockouts = "operator_pin.lockouts"
    static let pinLockedSeconds = "operator_pin.locked_seconds"
    static func plays(_ game: String) -> String { "plays." + game }
    static func playTime(_ game: String) -> String { "playtime." + game }
}
