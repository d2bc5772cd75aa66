import Graphics
import UI

/// The kiosk when nobody is there, and the state that takes: the idle timer (a game left
/// alone goes back to the menu, a menu left alone starts the attract mode) and the attract
/// rotation (each enabled game playing itself, silent, then its high-score table).
final class Unattended {
    var timer: IdleTimer
    /// The attract mode's own scene (never a player's paused game), or its table screen.
    private var scene: GameScene?
    private var table: HighScoreScene?
    private var startedAt = 0.0
    private var index = 0

    init(settings: Settings.Kiosk, now: Double) {
        timer = IdleTimer(idleToMenu: Double(settings.idleToMenuSeconds),
                          menuToAttract: Double(settings.menuToAttractSeconds), now: now)
    }

    func apply(_ settings: Settings.Kiosk) {
        timer.idleToMenu = Double(settings.idleToMenuSeconds)
        timer.menuToAttract = Double(settings.menuToAttractSeconds)
    }

    func enter(_ mode: IdleTimer.Mode, now: Double) { timer.enter(mode, now: now) }

    /// When the attract rotation moves on (nil: not in the attract mode).
    func deadline(in kiosk: Kiosk) -> Double? {
        guard case .attract = kiosk.mode else { return nil }
        return startedAt + Double(kiosk.settings.kiosk.attractSecondsPerGame)
    }

    func tick(in kiosk: Kiosk) {
        let now = kiosk.now
        // An install outlasts the idle timeout; its result must still be on the page.
        if kiosk.mode == .operatorMenu, kiosk.cabinet.updater.isWorking { timer.stillWaiting(now: now) }
        switch timer.update(now: now) {
        case .toMenu?: kiosk.goHome()
        case .toAttract?: if kiosk.panel.state != .off && !kiosk.panel.isClosed { next(in: kiosk) }
        case nil: break
        }
        if let due = deadline(in: kiosk), now >= due { next(in: kiosk) }
    }

    /// The next game (or table) of the rotation.
    private func next(in kiosk: Kiosk) {
        let items = Self.items(in: kiosk)
        guard !items.isEmpty else { return }
        index = index % items.count
        let (id, shown) = items[index]
        index += 1
        let language = kiosk.language
        let banner = AttractBanner(language: language, text: kiosk.coins.attractLine(language, store: kiosk.store))
        if let shown {
            stop()
            let scene = HighScoreScene(game: shown.game, language: language, variantKey: shown.variant.key, interactive: false,
                                       tables: HighScoreDesk.tableReader(shown.game, store: kiosk.store))
            scene.addSubview(banner)
            table = scene
            startedAt = kiosk.now
            kiosk.mode = .attract(id)
            kiosk.show(scene)
            banner.start(in: scene)
            return
        }
        table = nil
        // Its own silent scene: the attract mode never touches a player's paused game,
        // and the cabinet stays quiet when nobody is there.
        guard let scene = kiosk.shelf.makeAttractScene(id, in: kiosk) else { return }
        scene.isAutoplaying = true
        scene.addSubview(banner)
        self.scene?.pause()
        self.scene = scene
        startedAt = kiosk.now
        kiosk.mode = .attract(id)
        kiosk.show(scene)
        scene.resume()
        banner.start(in: scene)
    }

    func stop() {
        scene?.pause()
        scene = nil
        table = nil
    }

    /// The attract rotation: each enabled game, then its table when it has entries (the
    /// variant in play, or the first with any).
    static func items(in kiosk: Kiosk) -> [(id: String, table: (game: GameDescriptor, variant: ScoreVariant)?)] {
        var items: [(id: String, table: (game: GameDescriptor, variant: ScoreVariant)?)] = []
        for game in kiosk.shelf.catalog.games where kiosk.settings.kiosk.enabledGames.contains(game.id) {
            items.append((game.id, nil))
            let current = game.best.currentKey(kiosk.shelf.storage, kiosk.language, kiosk.settings.gameSettings)
            let filled = game.best.variants.filter {
                !kiosk.store.highScores($0.key, lowerIsBetter: game.best.lowerIsBetter).entries.isEmpty
            }
            if let variant = filled.first(where: { $0.key == current }) ?? filled.first {
                items.append((game.id, (game, variant)))
            }
        }
        return items
    }
}

/// "Touch to play" over the attract mode.
final class AttractBanner: View {
    let label: Label

    /// `text`: the credits mode's line ("Insert coin"); nil: "Touch to play!".
    init(language: Language, text: String? = nil) {
        label = Label(text ?? (language == .chinese ? "触摸屏幕开始游戏" : "Touch to play!"),
                      style: Theme.heading.with(color: Theme.accentText))
        super.init(frame: .zero)
        backgroundColor = Theme.accent
        cornerRadius = 30
        visualOutset = 14
        addSubview(label)
    }

    override func layoutSubviews() { label.frame = bounds }

    override func draw(_ canvas: Canvas) {
        canvas.shadow(bounds, radius: cornerRadius)
        super.draw(canvas)
    }

    func start(in scene: Scene) {
        frame = Rect(center: Point(scene.size.width / 2, scene.size.height - 60), size: Size(min(420, scene.size.width - 40), 60))
        isUserInteractionEnabled = false
        // A slow pulse: the one thing allowed to move on its own, in the attract mode.
        // The scene's animator holds these closures, so they hold the scene weakly:
        // otherwise every attract scene stays alive after the next one replaces it.
        // The scale goes in steps of 1/512 (a pixel of a 1080p banner's width): 31 sizes
        // whose shadow masks and text stay cached, where every frame's new size made a new
        // shadow mask (13M instructions a frame at 1920x1080, most of an attract frame).
        func pulse(_ scene: Scene?) {
            scene?.animator.tween(duration: 1.2, easing: .easeInOut) { [weak self] t in
                self?.scale = 1 + (0.06 * sin(t * .pi) * 512).rounded() / 512
            }.onComplete { [weak self, weak scene] in if self?.superview != nil { pulse(scene) } }
        }
        pulse(scene)
    }
}


#if canImport(Glibc)
import Glibc
#endif
