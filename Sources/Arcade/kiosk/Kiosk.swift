import Audio
import Graphics
import Input
import Platform
import UI

/// The program people meet: the menu, the games, the attract mode when nobody is there,
/// and the operator menu behind a gesture and a PIN. It owns the screen's scenes and
/// decides where input goes; the run loop (or the headless runner) feeds it events and
/// time and presents what it draws.
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
    public internal(set) var mode: Mode = .menu { didSet { countPlayTime(leaving: oldValue) } }
    /// When the game in play was entered (its play time is counted on leaving it).
    private var gameEnteredAt: Double?
    public private(set) var settings: Settings
    let store: StateStore
    let sound: SoundBoard
    let catalog: GameCatalog
    let menu: MenuScene
    var openGames: [String: GameScene] = [:]
    private var attractScene: GameScene?
    /// The attract rotation's table screen, while one shows.
    private var attractTable: HighScoreScene?
    private var attractStarted = 0.0
    private var attractIndex = 0
    var idle: IdleTimer
    private var operatorGesture: OperatorGesture
    var pin: PINEntry
    /// A PIN being checked off the run loop (`PINFlow.swift`).
    var pinCheck: PINCheck?
    /// Whether slow work (the PIN's hash, reading and writing USB sticks) runs on a thread
    /// of its own (the live kiosk) or at once (headless runs and tests, on their virtual
    /// clock).
    public var worksInBackground = false
    private var gestures: GestureRecognizer
    var now: Double
    /// A finished game waiting to ask for initials (`HighScoreFlow.swift`).
    var pendingResult: (game: String, result: GameResult, due: Double)?
    /// The date on a new high-score entry (tests fix it); the store's wall time, which
    /// never runs backwards.
    var today: () -> String = { WallClock.now().isoDate }
    /// The coin box and credit meter (`Credits.swift`).
    var creditMeter: CreditMeter
    /// Games whose current game is paid for and not over (credits mode): they resume free.
    var paidGames: Set<String> = []
    /// The "continue?" screen while it shows, and the result that ends the game if declined.
    var continuing: (scene: ContinueScene, result: GameResult)?
    /// Screen care and opening hours (`PanelFlow.swift`).
    var care: ScreenCare
    var panel: PanelState = .on
    var lastInput: Double
    /// Touches that woke the panel: their moves and lift go nowhere.
    var wakeTouches: Set<Int> = []
    var clockTrust = ClockTrust()
    /// The wall clock for opening hours (tests fix it); the store's wall time by default.
    var wallClock: () -> WallClock = { WallClock.now() }
    var isClosed = false
    var closedCardUntil: Double?
    var hoursCheckedAt = -Double.infinity
    var saidClockUntrusted = false
    /// The backlight level before dimming (nil: not dimmed through the backlight).
    var dimmedFrom: Int?
    var appliedVolume: Int?
    /// Switches the panel on or off (DPMS) and says whether it could; nil or false: the
    /// picture goes black instead.
    public var onPanelPower: ((Bool) -> Bool)?
    /// Whether the panel is off through DPMS (then nothing needs drawing).
    var panelPoweredOff = false
    /// The initials screen while it shows, and the result it is for.
    var initials: (scene: InitialsScene, result: GameResult)?
    private var seedCounter: UInt64
    let storage: StoreStorage
    /// The image's version and booted slot (`SystemVersion.swift`); the live kiosk reads it.
    public var systemVersion = SystemVersion()
    /// Frame times and CPU, and the metrics file (`KioskMetrics.swift`).
    let figures = RunFigures()
    var metrics: MetricsWriter?
    var cpuClock: () -> Double = RunFigures.processCPUSeconds
    /// System updates from a USB stick (`SystemUpdater.swift`); the live kiosk sets RAUC's.
    public var updater: SystemUpdater = SimulatedUpdater()
    /// Sticks mounted only while a page that uses them shows (`USBSticks.swift`); the live
    /// kiosk asks through its runtime directory.
    var usbSticks = USBStickRequest(runtimeDirectory: nil)
    /// The live kiosk's request, in systemd's runtime directory (`$RUNTIME_DIRECTORY`).
    public func asksForUSBSticksThroughRuntimeDirectory() { usbSticks = .fromEnvironment() }
    let startedAt: Double

    /// Asks the outside world to act on a setting the operator changed.
    /// The mixer's volume in percent (capped, quieter in the attract mode, 0 when closed):
    /// told again on the next tick after it is set.
    public var onVolumeChange: ((Int) -> Void)? { didSet { appliedVolume = nil } }
    public var onBrightnessChange: ((Int) -> Void)?
    public var brightnessReader: (() -> Int?)?
    public var onRotationChange: ((Int) -> Void)?
    public var onCalibrationModeChange: ((Bool) -> Void)?
    public var onCalibrationDone: (([Double]) -> Void)?
    public var onExitToConsole: (() -> Void)?
    /// The operator asked for a restart (systemd starts the kiosk again).
    public var onRestart: (() -> Void)?

    public init(screen: Screen, settings: Settings, store: StateStore, sound: SoundBoard,
                catalog: GameCatalog, now: Double, seed: UInt64 = 0x5EED) {
        self.screen = screen
        self.settings = settings
        self.store = store
        self.sound = sound
        self.catalog = catalog
        self.now = now
        self.seedCounter = seed
        startedAt = now
        storage = StoreStorage(store: store)
        creditMeter = CreditMeter(store: store, settings: settings.kiosk)
        care = ScreenCare(settings: settings.display)
        lastInput = now
        idle = IdleTimer(idleToMenu: Double(settings.kiosk.idleToMenuSeconds),
                         menuToAttract: Double(settings.kiosk.menuToAttractSeconds), now: now)
        operatorGesture = OperatorGesture(width: Double(screen.pixelWidth), height: Double(screen.pixelHeight))
        pin = PINEntry(verifier: settings.kiosk.operatorPIN)
        pin.restore(Kiosk.savedPINState(store), now: now)
        if pin.isSet == false {
            Log.notice("operator menu: no PIN is set, so it stays closed; settings come from /etc/boardwalk/boardwalk.conf (set a PIN: scripts/set-pin.sh)")
        }
        gestures = GestureRecognizer(pixelsPerPoint: screen.scale)
        menu = MenuScene(games: [], language: settings.kiosk.language, dataDirectory: settings.kiosk.dataDir)
        menu.onOpen = { [weak self] id in self?.open(game: id) }
        menu.onShowScores = { [weak self] id in self?.showHighScores(game: id) }
        UIEnvironment.playClick = { [weak sound] in sound?.play(.click, gain: 0.6, pan: 0) }
        store.onWritableChange = { [weak self] in self?.stateWritabilityChanged() }
        wallClock = { [unowned self] in WallClock(epochSeconds: self.store.wallTime(now: self.now)) }
        today = { [unowned self] in self.wallClock().isoDate }
        refreshMenu()
        show(menu)
        sound.playMusic(.menu)
        configureMetrics()
    }

    func refreshMenu() {
        let enabled = catalog.games.filter { settings.kiosk.enabledGames.contains($0.id) }
        menu.setGames(enabled)
        menu.language = language
        menu.showBestResults(storage, settings: settings.gameSettings)
        menu.creditLine = creditLine
    }

    /// Every scene change goes through here: the old scene's memory is free now, and
    /// giving its pages back keeps RSS at what the kiosk uses rather than at its peak.
    func show(_ scene: Scene) {
        screen.show(scene, now: now)
        releaseFreeHeap()
    }

    private func nextSeed() -> UInt64 {
        seedCounter = seedCounter &* 6364136223846793005 &+ 1442695040888963407
        return seedCounter
    }

    /// A new game scene's world: each gets its own seed.
    private func context(sound: SoundBoard, storage: GameStorage) -> GameContext {
        GameContext(sound: sound, storage: storage, language: language, seed: nextSeed(),
                    dataDirectory: settings.kiosk.dataDir, settings: settings.gameSettings)
    }

    /// Play time per game for the books: the time in `.game` mode, counted when it ends.
    private func countPlayTime(leaving old: Mode) {
        guard old != mode else { return }
        if case .game(let id) = old, let start = gameEnteredAt {
            let seconds = Int((now - start).rounded())
            if seconds > 0 { store.increment(CounterKey.playTime(id), by: seconds, now: now) }
        }
        if case .game = mode { gameEnteredAt = now } else { gameEnteredAt = nil }
    }

    // MARK: - Moving between screens

    public func open(game id: String) {
        guard settings.kiosk.enabledGames.contains(id) else { return }
        guard payForGame(id) else { return }
        let scene: GameScene
        if let existing = openGames[id] {
            scene = existing
        } else {
            guard let made = catalog.make(id, context: context(sound: sound, storage: storage),
                                          autoplay: false) else { return }
            made.onHome = { [weak self] in self?.goHome() }
            made.onResult = { [weak self] result in self?.gameFinished(id, result) }
            openGames[id] = made
            scene = made
        }
        store.countPlay(game: id, now: now)
        mode = .game(id)
        idle.enter(.game, now: now)
        gestures.reset()
        show(scene)
        scene.resume()
    }

    public func goHome() {
        leaveCurrent()
        mode = .menu
        idle.enter(.menu, now: now)
        refreshMenu()
        show(menu)
        sound.playMusic(.menu)
    }

    func leaveCurrent() {
        switch mode {
        case .game(let id): openGames[id]?.pause()
        case .initials(let id):
            takeInitials()
            openGames[id]?.pause()
        case .highScores(let id): openGames[id]?.pause()
        case .continuing(let id):
            continuing = nil
            endPaidGame(id)
        case .attract: stopAttract()
        default: break
        }
        gestures.reset()
    }

    private func startAttract(now: Double) {
        let items = attractItems()
        guard !items.isEmpty else { return }
        attractIndex = attractIndex % items.count
        let (id, table) = items[attractIndex]
        attractIndex += 1
        if let table {
            attractScene?.pause()
            attractScene = nil
            let scene = HighScoreScene(game: table.game, language: language, variantKey: table.variant.key,
                                       interactive: false, tables: tableReader(table.game))
            scene.addSubview(AttractBanner(language: language, text: attractLine))
            attractTable = scene
            attractStarted = now
            mode = .attract(id)
            show(scene)
            (scene.subviews.last as? AttractBanner)?.start(in: scene)
            return
        }
        attractTable = nil
        // Its own silent scene: the attract mode never touches a player's paused game,
        // and the cabinet stays quiet when nobody is there.
        guard let scene = catalog.make(id, context: context(sound: RecordingSoundBoard(), storage: MemoryStorage()),
                                       autoplay: true) else { return }
        scene.isAutoplaying = true
        scene.addSubview(AttractBanner(language: language, text: attractLine))
        attractScene?.pause()
        attractScene = scene
        attractStarted = now
        mode = .attract(id)
        show(scene)
        scene.resume()
        (scene.subviews.last as? AttractBanner)?.start(in: scene)
    }

    private func stopAttract() {
        attractScene?.pause()
        attractScene = nil
        attractTable = nil
    }

    func showOperatorScene() {
        mode = .operatorMenu
        let scene = OperatorScene(controls: self)
        scene.onClose = { [weak self] in self?.goHome() }
        scene.onLanguageChange = { [weak self] in self?.showOperatorScene() }
        show(scene)
    }

    // MARK: - Input and time

    /// One input event, in screen pixels.
    public func handle(_ event: InputEvent, now: Double) {
        self.now = max(self.now, now)
        if case .key(let key) = event, key.key == .coin {
            if key.isPressed { coinInserted() }
            return
        }
        if operatorGesture.handle(event), mode != .pin, mode != .operatorMenu, mode != .calibration {
            openOperatorMenu()
            return
        }
        if panelTakes(event) { return }
        let decision = idle.handle(event)
        if decision.transition == .toMenu {
            goHome()
        }
        guard decision.deliver, !isWaitingAfterPaidGame else { return }
        screen.handle(event)
        if case .touch(let t) = event {
            for g in gestures.handle(t) { screen.handle(g) }
        }
    }

    /// Timers: idle, the operator gesture's hold, long presses, attract rotation.
    public func tick(now: Double) {
        self.now = max(self.now, now)
        if operatorGesture.update(now: now), mode != .pin, mode != .operatorMenu { openOperatorMenu() }
        for g in gestures.update(now: now) { screen.handle(g) }
        // An install outlasts the idle timeout; its result must still be on the page.
        if mode == .operatorMenu, updater.isWorking { idle.stillWaiting(now: now) }
        switch idle.update(now: now) {
        case .toMenu?: goHome()
        case .toAttract?: if panel != .off && !isClosed { startAttract(now: now) }
        case nil: break
        }
        if case .attract = mode, now - attractStarted >= Double(settings.kiosk.attractSecondsPerGame) {
            startAttract(now: now)
        }
        finishPINCheck()
        tickPanel(now: now)
        tickHighScores(now: now)
        tickContinue(now: now)
        store.flushIfDue(now: now)
        tickMetrics(now: now)
        usbSticks.follow(screen.scene as? UsesUSBSticks, now: now)
    }

    /// When `tick` next has work to do, for the loop's timer.
    public var nextDeadline: Double? {
        var d = [idle.deadline, operatorGesture.deadline, gestures.nextDeadline, store.nextFlushDeadline,
                 highScoreDeadline, continuing?.scene.deadline, panelDeadline, metrics?.nextDeadline,
                 pinCheckDeadline, usbSticks.nextLook].compactMap { $0 }
        if case .attract = mode { d.append(attractStarted + Double(settings.kiosk.attractSecondsPerGame)) }
        // The untouched menu turns idle for the activity file.
        if mode == .menu, metrics != nil, lastInput + Kiosk.idleMenuSeconds > now { d.append(lastInput + Kiosk.idleMenuSeconds) }
        return d.min()
    }

    /// Advances the scene's animations and draws; the damage is what the presenter must
    /// copy out. Timers and state flushes are `tick`'s, run by the loop before frames.
    public func renderFrame(now: Double) -> DamageRegion {
        self.now = max(self.now, now)
        return screen.renderFrame(now: now)
    }

    /// Nothing to draw behind a panel switched off.
    public var wantsFrame: Bool { screen.wantsFrame && !panelPoweredOff }

    public func shutdown(now: Double) {
        self.now = max(self.now, now)
        leaveCurrent()
        if case .game = mode { mode = .menu }
        sound.stopMusic()
        store.close(now: now)
    }

    /// Applies a changed setting to the running kiosk (SIGHUP reload, operator menu).
    public func apply(_ newSettings: Settings) {
        // A game's own settings (Beat Zombies' difficulty) take effect with its next game.
        if newSettings.gameSettings != settings.gameSettings { openGames.removeAll() }
        settings = newSettings
        idle.idleToMenu = Double(settings.kiosk.idleToMenuSeconds)
        idle.menuToAttract = Double(settings.kiosk.menuToAttractSeconds)
        if newSettings.kiosk.operatorPIN != pin.verifierForComparison {
            let saved = pin.persisted(now: now)
            pin = PINEntry(verifier: settings.kiosk.operatorPIN)
            pin.restore(saved, now: now)
        }
        creditMeter = CreditMeter(store: store, settings: settings.kiosk)
        care = ScreenCare(settings: settings.display)
        hoursCheckedAt = -Double.infinity
        applyVolume()
        configureMetrics()
        if mode == .menu { refreshMenu() }
    }
}

extension Kiosk: OperatorControls {
    private func save(_ key: String, _ value: String) {
        assert(Settings.operatorKeys.contains(key), "\(key) is not an operator setting")
        _ = settings.apply(key: key, value: value)
        _ = store.setSetting(key, value, now: now)
    }

    public var volume: Int {
        get { settings.audio.volume }
        set { save("audio.volume", String(min(newValue, settings.audio.volumeMax))); applyVolume() }
    }
    public var brightness: Int? {
        get { brightnessReader?() }
        set { if let v = newValue { save("display.brightness", String(v)); onBrightnessChange?(v) } }
    }
    public var rotation: Int {
        get { settings.display.rotation }
        set { save("display.rotation", String(newValue)); onRotationChange?(newValue) }
    }
    public var language: Language {
        get { settings.kiosk.language }
        set { save("kiosk.language", newValue.rawValue); openGames.removeAll() }
    }
    public var idleToMenuSeconds: Int {
        get { settings.kiosk.idleToMenuSeconds }
        set { save("kiosk.idle_to_menu_seconds", String(newValue)); idle.idleToMenu = Double(newValue) }
    }
    public var menuToAttractSeconds: Int {
        get { settings.kiosk.menuToAttractSeconds }
        set { save("kiosk.menu_to_attract_seconds", String(newValue)); idle.menuToAttract = Double(newValue) }
    }
    public var games: [(id: String, name: String, enabled: Bool)] {
        catalog.games.map { ($0.id, $0.name(language), settings.kiosk.enabledGames.contains($0.id)) }
    }
    public func setGame(_ id: String, enabled: Bool) {
        var list = settings.kiosk.enabledGames.filter { $0 != id }
        if enabled { list.append(id) }
        // Keep the catalogue's order, and never switch every game off.
        list = catalog.ids.filter { list.contains($0) }
        guard !list.isEmpty else { return }
        save("kiosk.enabled_games", list.joined(separator: ","))
    }
    public var scoreTables: [ScoreTablesScene.Game] {
        catalog.games.map { game in
            let current = game.best.currentKey(storage, language, settings.gameSettings)
            return ScoreTablesScene.Game(name: game.name(language), variants: game.best.variants.map { ($0.key, $0.name(language)) },
                                         inPlay: game.best.variants.firstIndex { $0.key == current } ?? 0)
        }
    }
    public func highScoreCount(_ key: String) -> Int { store.highScoreEntries[key]?.count ?? 0 }
    public func clearHighScores(_ key: String) {
        store.clearHighScores(key, now: now)
        store.flush(now: now)
    }
    public func clearAllHighScores() {
        store.clearAllHighScores(now: now)
        store.flush(now: now)
    }
    public var playMode: PlayMode {
        get { settings.kiosk.playMode }
        set { save("kiosk.mode", newValue.rawValue); creditMeter.mode = newValue }
    }
    public var creditsPerPlay: Int {
        get { settings.kiosk.creditsPerPlay }
        set { save("kiosk.credits_per_play", String(newValue)); creditMeter.creditsPerPlay = settings.kiosk.creditsPerPlay }
    }
    public var coinsPerCredit: Int {
        get { settings.kiosk.coinsPerCredit }
        set { save("kiosk.coins_per_credit", String(newValue)); creditMeter.coinsPerCredit = settings.kiosk.coinsPerCredit }
    }
    public var credits: Int { creditMeter.credits }
    public var books: Bookkeeping { store.bookkeeping(games: catalog.ids, now: now) }
    public func exportBooks() -> BackgroundResult<Result<String, Bookkeeping.Problem>> {
        let epoch = store.wallTime(now: now)
        let csv = books.csv(exportedAt: epoch)
        // A stick can stall for seconds (a worn one, a hostile one): never on the run loop.
        return BackgroundResult("usb-export", inBackground: worksInBackground) {
            let result = USBExport.export(csv, mounts: (try? Files.readText("/proc/self/mounts")) ?? "", epoch: epoch)
            switch result {
            case .success(let path): Log.info("bookkeeping: exported to \(path)")
            case .failure(let problem): Log.warning("bookkeeping: export failed: \(problem)")
            }
            return result
        }
    }
    public func findBundles() -> BackgroundResult<[String]> {
        BackgroundResult("usb-bundles", inBackground: worksInBackground, updater.bundleFinder)
    }
    public func value(of key: String) -> String { settings.value(for: key) ?? "" }
    /// Saves the operator's choice and applies it to the running kiosk at once.
    public func change(_ key: String, to value: String) {
        guard Settings.operatorKeys.contains(key) else {
            Log.warning("operator: \(key) refused: not an operator setting")
            return
        }
        var next = settings
        if let problem = next.apply(key: key, value: value) {
            Log.warning("operator: \(key) = \(value) refused: \(problem)")
            return
        }
        _ = store.setSetting(key, value, now: now)
        apply(next)
    }
    public func resetBooks() {
        store.resetBookkeeping(now: now)
        Log.notice("bookkeeping: counters reset by the operator")
    }
    public func showPage(_ kind: OperatorPageKind) {
        let page: OperatorPage
        switch kind {
        case .highScores: page = ScoreTablesScene(controls: self)
        case .coins: page = CoinsPage(controls: self)
        case .books: page = BooksPage(controls: self)
        case .screenCare: page = ScreenCarePage(controls: self)
        case .sound: page = SoundPage(controls: self)
        case .update(let bundle): page = UpdatePage(controls: self, updater: updater, bundle: bundle)
        }
        page.onClose = { [weak self] in self?.showOperatorScene() }
        show(page)
    }
    public func startCalibration() {
        mode = .calibration
        onCalibrationModeChange?(true)
        let scene = CalibrationScene(language: language)
        scene.onDone = { [weak self] matrix in
            guard let self else { return }
            self.onCalibrationModeChange?(false)
            if let matrix {
                self.save("touch.calibration", matrix.map { String($0) }.joined(separator: " "))
                self.onCalibrationDone?(matrix)
            }
            self.showOperatorScene()
        }
        show(scene)
    }
    public func exitToConsole() { onExitToConsole?() }
    public func restartKiosk() { onRestart?() }
    public var stateIsWritable: Bool { store.isWritable }
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
