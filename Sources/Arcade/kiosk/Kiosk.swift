import Audio
import Graphics
import Input
import Platform
import UI

/// The program people meet: the menu, the games, the attract mode when nobody is there,
/// and the operator menu behind a gesture and a PIN. A router: it holds where the kiosk
/// is (`mode`) and the parts that own the rest — the games and menu (`GameShelf`), the
/// idle timer and attract mode (`Unattended`), the way into the operator menu
/// (`OperatorAccess`), coins and credits (`CreditDesk`), high scores (`HighScoreDesk`),
/// screen care and opening hours (`CabinetPanel`), metrics (`KioskReporting`) and the
/// cabinet's hardware (`Cabinet`) — and passes each event and tick to them in turn. The
/// run loop (or the headless runner) feeds it events and time and presents what it draws.
public final class Kiosk {
    public enum Mode: Equatable, Sendable {
        case menu
        case game(String)
        case attract(String)
        case pin
        case operatorMenu
        case calibration
        /// Initials for a new high score, then its table.
        case initials(String)
        /// A game's high-score tables, opened from its menu tile.
        case highScores(String)
        /// "Continue?" after a lost game in credits mode.
        case continuing(String)
        /// Outside the opening hours.
        case closed
    }

    public let screen: Screen
    public internal(set) var mode: Mode = .menu {
        didSet { shelf.countPlayTime(leaving: oldValue, for: mode, store: store, now: now) }
    }
    public private(set) var settings: Settings
    let store: StateStore
    let sound: SoundBoard
    /// The latest time the loop or an event told (monotonic seconds; never goes back).
    private(set) var now: Double
    let shelf: GameShelf
    let idle: Unattended
    let access: OperatorAccess
    let coins: CreditDesk
    let scores: HighScoreDesk
    let panel: CabinetPanel
    let reporting: KioskReporting
    /// The hardware and system services around the kiosk; the live kiosk wires them.
    public let cabinet = Cabinet()

    public init(screen: Screen, settings: Settings, store: StateStore, sound: SoundBoard,
                catalog: GameCatalog, now: Double, seed: UInt64 = 0x5EED) {
        self.screen = screen
        self.settings = settings
        self.store = store
        self.sound = sound
        self.now = now
        shelf = GameShelf(catalog: catalog, store: store, settings: settings.kiosk, seed: seed)
        idle = Unattended(settings: settings.kiosk, now: now)
        access = OperatorAccess(screen: screen, verifier: settings.kiosk.operatorPIN, store: store, now: now)
        coins = CreditDesk(store: store, settings: settings.kiosk)
        scores = HighScoreDesk()
        panel = CabinetPanel(settings: settings.display, now: now)
        reporting = KioskReporting(startedAt: now)
        shelf.menu.onOpen = { [weak self] id in self?.open(game: id) }
        shelf.menu.onShowScores = { [weak self] id in self.map { $0.scores.showHighScores(game: id, in: $0) } }
        UIEnvironment.playClick = { [weak sound] in sound?.play(.click, gain: 0.6, pan: 0) }
        store.onWritableChange = { [weak self] in self?.stateWritabilityChanged() }
        panel.wallClock = { [unowned self] in WallClock(epochSeconds: self.store.wallTime(now: self.now)) }
        scores.today = { [unowned self] in self.panel.wallClock().isoDate }
        refreshMenu()
        show(shelf.menu)
        sound.playMusic(.menu)
        reporting.apply(settings.metrics)
    }

    var catalog: GameCatalog { shelf.catalog }

    func refreshMenu() {
        shelf.refreshMenu(settings: settings, creditLine: coins.creditLine(language, store: store))
    }

    /// Every scene change goes through here: the old scene's memory is free now, and
    /// giving its pages back keeps RSS at what the kiosk uses rather than at its peak.
    func show(_ scene: Scene) {
        screen.show(scene, now: now)
        releaseFreeHeap()
    }

    /// The PIN pad, the operator menu and its pages, calibration.
    var isOperatorMode: Bool {
        switch mode {
        case .pin, .operatorMenu, .calibration: return true
        default: return false
        }
    }

    // MARK: - Moving between screens

    public func open(game id: String) {
        guard settings.kiosk.enabledGames.contains(id) else { return }
        guard coins.pay(for: id, in: self) else { return }
        guard let scene = shelf.scene(id, in: self) else { return }
        store.countPlay(game: id, now: now)
        mode = .game(id)
        idle.enter(.game, now: now)
        show(scene)
        scene.resume()
    }

    public func goHome() {
        leaveCurrent()
        mode = .menu
        idle.enter(.menu, now: now)
        refreshMenu()
        show(shelf.menu)
        sound.playMusic(.menu)
    }

    /// Back to a finished game's own end-of-game panel (after its table).
    func backToGame(_ id: String) {
        guard let scene = shelf.openGames[id] else { return goHome() }
        mode = .game(id)
        idle.enter(.game, now: now)
        show(scene)
    }

    func leaveCurrent() {
        switch mode {
        case .game(let id): shelf.openGames[id]?.pause()
        case .initials(let id):
            scores.takeInitials(in: self)
            shelf.openGames[id]?.pause()
        case .highScores(let id): shelf.openGames[id]?.pause()
        case .continuing(let id): coins.leaveContinue(id, in: self)
        case .attract: idle.stop()
        default: break
        }
    }

    public func openOperatorMenu() { access.openPad(in: self) }

    func showOperatorScene() {
        mode = .operatorMenu
        let scene = OperatorScene(controls: self)
        scene.onClose = { [weak self] in self?.goHome() }
        scene.onLanguageChange = { [weak self] in self?.showOperatorScene() }
        show(scene)
    }

    /// The state partition stopped (or started again) taking writes: the screens that say
    /// so follow at once.
    func stateWritabilityChanged() {
        if mode == .menu { refreshMenu() }
        (screen.scene as? OperatorScene)?.refresh()
    }

    // MARK: - Input and time

    /// One input event, in screen pixels: the coin mech first, then the operator gesture,
    /// the panel (a wake-up touch goes no further), the idle timer, and the scene.
    public func handle(_ event: InputEvent, now: Double) {
        self.now = max(self.now, now)
        if case .key(let key) = event, key.key == .coin {
            if key.isPressed { coins.coinInserted(in: self) }
            return
        }
        if access.gestureCompleted(by: event), !isOperatorMode {
            openOperatorMenu()
            return
        }
        if panel.takes(event, in: self) { return }
        let decision = idle.timer.handle(event)
        if decision.transition == .toMenu {
            goHome()
        }
        guard decision.deliver, !coins.isWaitingAfterPaidGame(mode) else { return }
        screen.handle(event)
        // Timed from a press or a lift the screen answers with a frame (moves are not).
        if let time = event.pressOrLiftTime, screen.wantsFrame { reporting.figures.inputChangedScreen(at: time) }
    }

    /// Timers: each part's, in turn; then the state store's coalesced writes.
    public func tick(now: Double) {
        self.now = max(self.now, now)
        if access.gestureCompleted(now: now), mode != .pin, mode != .operatorMenu { openOperatorMenu() }
        idle.tick(in: self)
        access.finishCheck(in: self)
        panel.tick(in: self)
        scores.tick(in: self)
        coins.tick(in: self)
        store.flushIfDue(now: now)
        reporting.tick(self)
        cabinet.usbSticks.follow(screen.scene as? UsesUSBSticks, now: now)
    }

    /// When `tick` next has work to do, for the loop's timer.
    public var nextDeadline: Double? {
        var d = [idle.timer.deadline, idle.deadline(in: self), access.deadline(now: now), store.nextFlushDeadline,
                 scores.deadline, coins.continueDeadline, panel.deadline(in: self), reporting.deadline,
                 cabinet.usbSticks.nextLook].compactMap { $0 }
        // The untouched menu turns idle for the activity file.
        let idleMenuAt = panel.lastInput + KioskReporting.idleMenuSeconds
        if mode == .menu, reporting.writer != nil, idleMenuAt > now { d.append(idleMenuAt) }
        return d.min()
    }

    /// Advances the scene's animations and draws; the damage is what the presenter must
    /// copy out. Timers and state flushes are `tick`'s, run by the loop before frames.
    public func renderFrame(now: Double) -> DamageRegion {
        self.now = max(self.now, now)
        return screen.renderFrame(now: now)
    }

    /// From each input's kernel time to the vblank of the frame that showed its result.
    public var inputToPhoton: Histogram { reporting.figures.inputToPhoton }
    /// Keeps every input-to-photon time too (the bench's percentiles), from now on.
    public func keepInputToPhotonSamples() { reporting.figures.photonSamples = [] }
    public var inputToPhotonSamples: [Double] { reporting.figures.photonSamples ?? [] }

    /// Nothing to draw behind a panel switched off.
    public var wantsFrame: Bool { screen.wantsFrame && !panel.poweredOff }

    public func shutdown(now: Double) {
        self.now = max(self.now, now)
        leaveCurrent()
        if case .game = mode { mode = .menu }
        sound.stopMusic()
        store.close(now: now)
    }

    /// The mixer's volume told again (a new mixer).
    public func applyVolume() { panel.applyVolume(in: self, force: true) }

    /// Applies a changed setting to the running kiosk (SIGHUP reload, operator menu).
    public func apply(_ newSettings: Settings) {
        // A game's own settings (Beat Zombies' difficulty) take effect with its next game.
        if newSettings.gameSettings != settings.gameSettings { shelf.closeAll() }
        settings = newSettings
        idle.apply(settings.kiosk)
        access.apply(verifier: settings.kiosk.operatorPIN, now: now)
        coins.apply(settings.kiosk, store: store)
        panel.apply(settings)
        panel.applyVolume(in: self)
        reporting.apply(settings.metrics)
        if mode == .menu { refreshMenu() }
    }

    /// Saves one operator setting to the state store and the running settings, without
    /// the rest of `apply` (the caller applies what the setting changes).
    func save(_ key: String, _ value: String) {
        assert(Settings.operatorKeys.contains(key), "\(key) is not an operator setting")
        _ = settings.apply(key: key, value: value)
        _ = store.setSetting(key, value, now: now)
    }
}

private extension InputEvent {
    /// The kernel's time of a finger down or up or a key press; nil for moves and releases.
    var pressOrLiftTime: Double? {
        switch self {
        case .touch(let t): return t.phase == .down || t.phase == .up ? t.time : nil
        case .key(let k): return k.isPressed ? k.time : nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
