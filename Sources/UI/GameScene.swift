import Audio
import Graphics

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
    /// How the game ranks its results (`recordBest` keeps the better one).
    public let bestScore: BestScore
    /// Held 0.8 s (a stray tap must not end a game), then `onHome`.
    public let homeButton = Button(icon: "🏠", kind: .secondary)
    public private(set) var isPaused = false
    /// The kiosk hears of each finished game here (its high-score table); never in attract
    /// mode.
    public var onResult: ((GameResult) -> Void)?
    /// Attract mode: the scene plays itself with its autoplayer, silently for the player
    /// (the kiosk gives it its own sound board); touches are not passed in.
    open var isAutoplaying = false

    /// `game`: the scene's own descriptor, for its tune and how it ranks results.
    public init(_ context: GameContext, game: GameDescriptor) {
        sound = context.sound
        storage = context.storage
        language = context.language
        seed = context.seed
        music = game.music
        bestScore = game.best
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

    /// A game ended with `score` in the variant whose key is `variantKey`: it is kept as the
    /// variant's best when it is one (`recordBest`), and the kiosk may ask for initials.
    /// Practice and attract games don't report.
    public func reportResult(_ score: Int, variantKey: String) {
        guard !isAutoplaying else { return }
        recordBest(score, variantKey: variantKey)
        onResult?(GameResult(score: score, variantKey: variantKey))
    }

    /// The one way a game keeps a best: `result` is written under `variantKey` when it beats
    /// the stored one in the game's order (`BestScore.isBetter`). Attract games keep none,
    /// and a score of nothing (0 where higher is better) is none: the menu says "New!" until
    /// there is something to beat. Returns the best now stored (nil: none yet).
    @discardableResult
    public func recordBest(_ result: Int, variantKey: String) -> Int? {
        let stored = storage.integer(variantKey)
        guard !isAutoplaying, result > 0 || bestScore.lowerIsBetter,
              bestScore.isBetter(result, than: stored) else { return stored }
        storage.setInteger(variantKey, result)
        return result
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
    public private(set) var endPanel: EndOfGamePanel?

    /// Puts the end-of-game panel over the scene: sized to it, grown in, its first button
    /// focused so sticks and keys reach it. A button's press takes the panel away first.
    public func present(_ panel: EndOfGamePanel) {
        dismissEndPanel()
        endPanel = panel
        panel.onChoice = { [weak self] in self?.dismissEndPanel() }
        panel.layout(in: size)
        addSubview(panel)
        panel.present(animator: animator)
        focus(panel.buttons.first)
    }

    /// Takes the end-of-game panel away (a new game starts).
    public func dismissEndPanel() {
        guard let panel = endPanel else { return }
        endPanel = nil
        panel.removeFromSuperview()
        focus(nil)
    }

    open override func didAppear() {
        if wantsMusic && !isPaused { sound.playMusic(music) }
    }

    open override func willDisappear() {
        saveProgress()
    }
}
