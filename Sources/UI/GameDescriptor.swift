import Audio
import Graphics

/// A game as the kiosk knows it. Each game module defines exactly one; the kiosk's
/// catalogue lists them, and the config's game list, the menu, the attract mode and the
/// state store read ids, names and score keys from here.
public struct GameDescriptor {
    /// The id in config files (`kiosk.enabled_games`), scripts and logs: "beat_zombies".
    public let id: String
    public let names: [Language: String]
    /// The menu tile's picture and colour. `tilePicture`, given the data directory, draws
    /// the tile from the game's own art where it has some; else the emoji is the picture.
    public let emoji: String
    public let tilePicture: (@Sendable (_ dataDirectory: String) -> Surface?)?
    public let color: Color
    /// The game's tune (Audio's `Music`): started when the scene appears, paused with it.
    public let music: Music
    public let best: BestScore
    public let makeScene: (GameContext) -> GameScene
    /// Slow preparation the kiosk runs on a background thread after its first frame, given
    /// the data directory (decoding pictures), so opening the game later doesn't stall a
    /// frame. The scene must work without it (tests, a player faster than the thread).
    public let warmUp: (@Sendable (_ dataDirectory: String) -> Void)?

    public init(id: String, names: [Language: String], emoji: String,
                tilePicture: (@Sendable (_ dataDirectory: String) -> Surface?)? = nil, color: Color, music: Music,
                best: BestScore, warmUp: (@Sendable (_ dataDirectory: String) -> Void)? = nil,
                makeScene: @escaping (GameContext) -> GameScene) {
        self.id = id
        self.names = names
        self.emoji = emoji
        self.tilePicture = tilePicture
        self.color = color
        self.music = music
        self.best = best
        self.warmUp = warmUp
        self.makeScene = makeScene
    }

    public func name(_ language: Language) -> String { names[language] ?? names[.english] ?? id }

    /// The best result for the variant in play, if any.
    public func bestResult(_ storage: GameStorage, language: Language, settings: [String: String] = [:]) -> Int? {
        storage.integer(best.currentKey(storage, language, settings))
    }
}
