import Audio

/// Everything a game scene is built from.
public struct GameContext {
    public var sound: SoundBoard
    public var storage: GameStorage
    public var language: Language
    /// Seeds the game's generator: the same seed deals the same game.
    public var seed: UInt64
    /// Where data files live (question packs, sprite sheets): `<data_dir>`.
    public var dataDirectory: String
    /// The operator's settings for games, by config key ("zombies.difficulty": "gentle"),
    /// already checked by the config; a game reads its own.
    public var settings: [String: String]

    public init(sound: SoundBoard, storage: GameStorage, language: Language, seed: UInt64,
                dataDirectory: String = "/usr/share/boardwalk", settings: [String: String] = [:]) {
        self.sound = sound
        self.storage = storage
        self.language = language
        self.seed = seed
        self.dataDirectory = dataDirectory
        self.settings = settings
    }
}
