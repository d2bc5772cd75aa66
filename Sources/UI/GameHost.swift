import Audio
import Graphics

// What the kiosk and a game agree on: the game's identity (`GameDescriptor`, defined once
// by the game's own module), what a scene gets to run (`GameContext`), and the scene base
// that gives all games the same pause, resume, home button and words (`GameScene`).

public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case chinese = "zh"
}

/// Persistent per-game values (best scores, chosen theme, board size). The kiosk backs
/// it with the atomic state store; tests use `MemoryStorage`. Keys are namespaced by the
/// game, e.g. "2048.best.5x5"; a key holding ".best" is a score (the operator can clear
/// those), everything else a setting.
public protocol GameStorage: AnyObject {
    func integer(_ key: String) -> Int?
    func setInteger(_ key: String, _ value: Int)
    func string(_ key: String) -> String?
    func setString(_ key: String, _ value: String)
}

public final class MemoryStorage: GameStorage {
    public private(set) var values: [String: String] = [:]
    public init() {}
    public func integer(_ key: String) -> Int? { values[key].flatMap { Int($0) } }
    public func setInteger(_ key: String, _ value: Int) { values[key] = String(value) }
    public func string(_ key: String) -> String? { values[key] }
    public func setString(_ key: String, _ value: String) { values[key] = value }
}

/// A game's names in the storage: settings are "<namespace>.<name>", best results
/// "<namespace>.best" or "<namespace>.best.<variant>". The ".best" marks a score for the
/// state store (the operator can clear scores, never settings). Namespaces are stored
/// data: they never change ("zombies", "guess", "2048", "memory").
public struct StorageKeys: Sendable {
    public let namespace: String

    public init(namespace: String) { self.namespace = namespace }

    public func setting(_ name: String) -> String { "\(namespace).\(name)" }
    public func best(_ variant: String? = nil) -> String {
        variant.map { "\(namespace).best.\($0)" } ?? "\(namespace).best"
    }

    /// Whether a stored key holds a score.
    public static func isScore(_ key: String) -> Bool { key.contains(".best") }
}

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

/// One of a game's result tables: a board size, a grid, a pack language. The kiosk keeps a
/// top-ten table under the same key as the variant's best result.
public struct ScoreVariant: Sendable, Equatable {
    /// The storage key of the variant's best ("2048.best.5x5"); also its table's key.
    public let key: String
    /// Its words on the table's title ("5×5", "中文"), in both languages; empty for a game
    /// with one table.
    public let names: [Language: String]

    public init(key: String, names: [Language: String] = [:]) {
        self.key = key
        self.names = names
    }

    public func name(_ language: Language) -> String { names[language] ?? names[.english] ?? "" }
}

/// How a game ranks its results and where it keeps its best ones.
public struct BestScore: Sendable {
    /// Memory Match counts moves: fewer is better.
    public let lowerIsBetter: Bool
    /// Every variant with a table of its own, in the order the table screen shows them.
    public let variants: [ScoreVariant]
    /// The storage key of the best result for the variant in play now (2048's board size,
    /// Memory's grid, Guess Picture's language, Beat Zombies' difficulty from the operator's
    /// game settings, `GameContext.settings`): the one the menu shows.
    public let currentKey: @Sendable (GameStorage, Language, _ settings: [String: String]) -> String
    /// The menu tile's words for the best result of the variant in play: "High score 120",
    /// "5×5 best 3012", "Fewest moves 14".
    public let label: @Sendable (_ result: Int, _ language: Language, _ storage: GameStorage) -> String

    public init(lowerIsBetter: Bool = false, variants: [ScoreVariant],
                currentKey: @escaping @Sendable (GameStorage, Language, _ settings: [String: String]) -> String,
                label: @escaping @Sendable (_ result: Int, _ language: Language, _ storage: GameStorage) -> String) {
        self.lowerIsBetter = lowerIsBetter
        self.variants = variants
        self.currentKey = currentKey
        self.label = label
    }

    /// Whether `result` beats `best` (nil: nothing yet, anything beats it).
    public func isBetter(_ result: Int, than best: Int?) -> Bool {
        guard let best else { return true }
        return lowerIsBetter ? result < best : result > best
    }

    public func variant(_ key: String) -> ScoreVariant? { variants.first { $0.key == key } }
}

/// A finished game, as the scene reports it for the high-score table.
public struct GameResult: Equatable, Sendable {
    public var score: Int
    /// The variant's key (`ScoreVariant.key`): "2048.best.5x5".
    public var variantKey: String

    public init(score: Int, variantKey: String) {
        self.score = score
        self.variantKey = variantKey
    }
}

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

/// The base of every game scene, so the kiosk runs them all the same way: `pause()` when
/// the player leaves (home, idle, attract), `resume()` when the same scene is opened again.
/// Pausing twice is pausing once; a pause always saves (`saveProgress`). The subclass says
/// what its clock does (`gameDidPause`/`gameDidResume`) and whether its tune should play now
/// (`wantsMusic`).
open class GameScene: Scene {
    public let sound: SoundBoard
    public let storage: GameStorage
    public let language: Language
    public let seed: UInt64
    public let music: Music
    /// Held 0.8 s (a stray tap must not end a game), then `onHome`.
    public let homeButton = Button(icon: "🏠", kind: .secondary)
    public private(set) var isPaused = false
    /// The kiosk hears of each finished game here (its high-score table); never in attract
    /// mode.
    public var onResult: ((GameResult) -> Void)?
    /// Attract mode: the scene plays itself with its autoplayer, silently for the player
    /// (the kiosk gives it its own sound board); touches are not passed in.
    open var isAutoplaying = false

    public init(_ context: GameContext, music: Music) {
        sound = context.sound
        storage = context.storage
        language = context.language
        seed = context.seed
        self.music = music
        super.init()
        homeButton.holdDuration = 0.8
        homeButton.action = { [weak self] in self?.onHome?() }
    }

    /// The player's language picks the words.
    public func text(_ english: String, _ chinese: String) -> String {
        language == .chinese ? chinese : english
    }

    /// Whether the tune should be playing now (not in attract mode; some games stop it at
    /// game over).
    open var wantsMusic: Bool { !isAutoplaying }

    /// A game ended with `score` in the variant whose key is `variantKey`: the kiosk may ask
    /// for initials. Practice and attract games don't report.
    public func reportResult(_ score: Int, variantKey: String) {
        guard !isAutoplaying else { return }
        onResult?(GameResult(score: score, variantKey: variantKey))
    }

    /// Whether the game just ended can go on where it was ("continue?" in credits mode:
    /// Beat Zombies after the zombies won).
    open var canContinue: Bool { false }
    /// Goes on after a paid continue (only called when `canContinue`).
    open func continueGame() {}

    /// Writes what must survive a restart (best scores). Called on pause and on leaving.
    open func saveProgress() {}
    /// The clock stops here: timers, deadlines, animations that count against the player.
    open func gameDidPause() {}
    open func gameDidResume() {}

    public final func pause() {
        guard !isPaused else { return }
        isPaused = true
        sound.pauseMusic()
        gameDidPause()
        saveProgress()
    }

    public final func resume() {
        guard isPaused else { return }
        isPaused = false
        gameDidResume()
        if wantsMusic { sound.resumeMusic() }
    }

    /// The end-of-game panel over the scene, while one is up.
    public private(set) var overlay: GameOverlay?

    /// Puts an end-of-game panel over the scene: sized to it, grown in with the panel's own
    /// animation, its button focused so sticks and keys reach it.
    public func present(_ overlay: GameOverlay) {
        dismissOverlay()
        self.overlay = overlay
        overlay.layout(in: size)
        addSubview(overlay)
        overlay.present(animator: animator)
        focus(overlay.primaryButton)
    }

    /// Takes the end-of-game panel away (a new game starts).
    public func dismissOverlay() {
        overlay?.removeFromSuperview()
        overlay = nil
        focus(nil)
    }

    open override func didAppear() {
        if wantsMusic && !isPaused { sound.playMusic(music) }
    }

    open override func willDisappear() {
        saveProgress()
    }
}

/// A panel shown over a finished game ("the zombies won", the end of a question pack): a
/// dimmed cover over the whole scene that takes every touch, with the subclass's panel on it.
open class GameOverlay: View {
    /// The button that starts the next game (focused, for sticks and keys).
    public let primaryButton: Button

    public init(primaryButton: Button) {
        self.primaryButton = primaryButton
        super.init(frame: .zero)
        backgroundColor = Theme.dimCover
    }

    open override var acceptsTouches: Bool { true }

    /// Covers a scene of `size`, then places the panel (`layoutPanel`).
    public final func layout(in size: Size) {
        frame = Rect(0, 0, size.width, size.height)
        layoutPanel(in: size)
    }

    open func layoutPanel(in size: Size) {}
    /// How it appears; the default shows it at once.
    open func present(animator: Animator) {}
}
