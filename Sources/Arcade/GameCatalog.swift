import Audio
import Graphics
import UI

/// The games the kiosk knows: what the menu shows of each and how to build its scene.
public struct GameCatalog {
    public typealias Factory = (_ sound: SoundBoard, _ storage: GameStorage, _ language: Language,
                                _ seed: UInt64) -> GameScene?
    public private(set) var entries: [GameEntry] = []
    private var factories: [String: Factory] = [:]
    private var bestKeys: [String: (Language) -> String] = [:]

    public init() {}

    /// Adds a game; `bestKey` names its best score in the game storage (per language
    /// for games whose content depends on it).
    public mutating func add(_ entry: GameEntry, bestKey: @escaping (Language) -> String, factory: @escaping Factory) {
        entries.append(entry)
        factories[entry.id] = factory
        bestKeys[entry.id] = bestKey
    }

    func make(_ id: String, sound: SoundBoard, storage: GameStorage, language: Language, seed: UInt64,
              autoplay: Bool) -> GameScene? {
        guard let scene = factories[id]?(sound, storage, language, seed) else { return nil }
        scene.isAutoplaying = autoplay
        return scene
    }

    func bestScore(_ id: String, _ storage: GameStorage, language: Language = .english) -> Int? {
        bestKeys[id].flatMap { storage.integer($0(language)) }
    }
}
