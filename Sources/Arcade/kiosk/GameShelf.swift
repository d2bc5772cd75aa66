import Audio
import Platform
import UI

/// The games and the menu that offers them, and the state that takes: the catalogue, the
/// scenes of games a player left open (they resume where they were), each new game's seed,
/// and when the game in play was entered (its play time goes to the books on leaving it).
final class GameShelf {
    let catalog: GameCatalog
    let menu: MenuScene
    /// Game storage on the state store (scores and the games' own settings).
    let storage: StoreStorage
    private(set) var openGames: [String: GameScene] = [:]
    private var seedCounter: UInt64
    private var gameEnteredAt: Double?

    init(catalog: GameCatalog, store: StateStore, settings: Settings.Kiosk, seed: UInt64) {
        self.catalog = catalog
        storage = StoreStorage(store: store)
        seedCounter = seed
        menu = MenuScene(games: [], language: settings.language, dataDirectory: settings.dataDir)
    }

    private func nextSeed() -> UInt64 {
        seedCounter = seedCounter &* 6364136223846793005 &+ 1442695040888963407
        return seedCounter
    }

    /// A new game scene's world: each gets its own seed.
    private func context(sound: SoundBoard, storage: GameStorage, settings: Settings) -> GameContext {
        GameContext(sound: sound, storage: storage, language: settings.kiosk.language, seed: nextSeed(),
                    dataDirectory: settings.kiosk.dataDir, settings: settings.gameSettings)
    }

    /// The game's open scene, or a new one wired to the kiosk.
    func scene(_ id: String, in kiosk: Kiosk) -> GameScene? {
        if let existing = openGames[id] { return existing }
        guard let made = catalog.make(id, context: context(sound: kiosk.sound, storage: storage, settings: kiosk.settings),
                                      autoplay: false) else { return nil }
        made.onHome = { [weak kiosk] in kiosk?.goHome() }
        made.onResult = { [weak kiosk] result in kiosk.map { $0.scores.gameFinished(id, result, in: $0) } }
        openGames[id] = made
        return made
    }

    /// A silent game scene playing itself, on storage of its own: the attract mode's.
    func makeAttractScene(_ id: String, in kiosk: Kiosk) -> GameScene? {
        catalog.make(id, context: context(sound: RecordingSoundBoard(), storage: MemoryStorage(), settings: kiosk.settings),
                     autoplay: true)
    }

    /// Forgets a game's open scene: its next opening starts a new game.
    func close(_ id: String) { openGames[id] = nil }

    /// Forgets every open game (a new language, new game settings).
    func closeAll() { openGames.removeAll() }

    /// The menu as the settings and the store say now.
    func refreshMenu(settings: Settings, creditLine: String?) {
        menu.setGames(catalog.games.filter { settings.kiosk.enabledGames.contains($0.id) })
        menu.language = settings.kiosk.language
        menu.showBestResults(storage, settings: settings.gameSettings)
        menu.creditLine = creditLine
    }

    /// Play time per game for the books: the time in `.game` mode, counted when it ends.
    func countPlayTime(leaving old: Kiosk.Mode, for new: Kiosk.Mode, store: StateStore, now: Double) {
        guard old != new else { return }
        if case .game(let id) = old, let start = gameEnteredAt {
            let seconds = Int((now - start).rounded())
            if seconds > 0 { store.increment(CounterKey.playTime(id), by: seconds, now: now) }
        }
        if case .game = new { gameEnteredAt = now } else { gameEnteredAt = nil }
    }
}

/// Game storage on the state store: keys with ".best" are scores (the operator can
/// reset them; the game decides what beats what), the rest are settings.
final class StoreStorage: GameStorage {
    let store: StateStore
    init(store: StateStore) { self.store = store }
    func integer(_ key: String) -> Int? {
        StorageKeys.isScore(key) ? store.best(key) : store.setting(key).flatMap { Int($0) }
    }
    func setInteger(_ key: String, _ value: Int) {
        if StorageKeys.isScore(key) { store.setScore(key, value) } else { _ = store.setSetting(key, String(value)) }
    }
    func string(_ key: String) -> String? { store.setting(key) }
    func setString(_ key: String, _ value: String) { _ = store.setSetting(key, value) }
}
