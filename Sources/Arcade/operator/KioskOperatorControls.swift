import Platform
import ScreenGeometry
import UI

/// The operator menu's view of the kiosk: each setting read from the running settings,
/// saved to the state store and applied at once.
extension Kiosk: OperatorControls {
    public var volume: Int {
        get { settings.audio.volume }
        set { save(SettingKey.audioVolume, String(min(newValue, settings.audio.volumeMax))); panel.applyVolume(in: self) }
    }
    public var brightness: Int? {
        get { cabinet.brightnessReader?() }
        set { if let v = newValue { save(SettingKey.displayBrightness, String(v)); cabinet.onBrightnessChange?(v) } }
    }
    public var rotation: Rotation {
        get { settings.display.rotation }
        set { save(SettingKey.displayRotation, String(newValue.rawValue)); cabinet.onRotationChange?(newValue) }
    }
    public var language: Language {
        get { settings.kiosk.language }
        set { save(SettingKey.kioskLanguage, newValue.rawValue); shelf.closeAll() }
    }
    public var idleToMenuSeconds: Int {
        get { settings.kiosk.idleToMenuSeconds }
        set { save(SettingKey.kioskIdleToMenuSeconds, String(newValue)); idle.apply(settings.kiosk) }
    }
    public var menuToAttractSeconds: Int {
        get { settings.kiosk.menuToAttractSeconds }
        set { save(SettingKey.kioskMenuToAttractSeconds, String(newValue)); idle.apply(settings.kiosk) }
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
        save(SettingKey.kioskEnabledGames, list.joined(separator: ","))
    }
    public var scoreTables: [ScoreTablesScene.Game] {
        catalog.games.map { game in
            let current = game.best.currentKey(shelf.storage, language, settings.gameSettings)
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
        set { save(SettingKey.kioskMode, newValue.rawValue); coins.apply(settings.kiosk, store: store) }
    }
    public var creditsPerPlay: Int {
        get { settings.kiosk.creditsPerPlay }
        set { save(SettingKey.kioskCreditsPerPlay, String(newValue)); coins.apply(settings.kiosk, store: store) }
    }
    public var coinsPerCredit: Int {
        get { settings.kiosk.coinsPerCredit }
        set { save(SettingKey.kioskCoinsPerCredit, String(newValue)); coins.apply(settings.kiosk, store: store) }
    }
    public var credits: Int { coins.meter.credits }
    public var books: Bookkeeping { store.bookkeeping(games: catalog.ids, now: now) }
    public func exportBooks() -> BackgroundResult<Result<String, Bookkeeping.Problem>> {
        let epoch = store.wallTime(now: now)
        let csv = books.csv(exportedAt: epoch)
        // A stick can stall for seconds (a worn one, a hostile one): never on the run loop.
        return BackgroundResult("usb-export", inBackground: cabinet.worksInBackground) {
            let result = Bookkeeping.exportToStick(csv, mounts: (try? Files.readText("/proc/self/mounts")) ?? "", epoch: epoch)
            switch result {
            case .success(let path): Log.info("bookkeeping: exported to \(path)")
            case .failure(let problem): Log.warning("bookkeeping: export failed: \(problem)")
            }
            return result
        }
    }
    public func findBundles() -> BackgroundResult<[String]> {
        BackgroundResult("usb-bundles", inBackground: cabinet.worksInBackground, cabinet.updater.bundleFinder)
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
        case .update(let bundle): page = UpdatePage(controls: self, updater: cabinet.updater, bundle: bundle)
        }
        page.onClose = { [weak self] in self?.showOperatorScene() }
        show(page)
    }
    public func startCalibration() {
        mode = .calibration
        cabinet.onCalibrationModeChange?(true)
        let scene = CalibrationScene(language: language)
        scene.onDone = { [weak self] matrix in
            guard let self else { return }
            self.cabinet.onCalibrationModeChange?(false)
            if let matrix {
                self.save(SettingKey.touchCalibration, matrix.map { String($0) }.joined(separator: " "))
                self.cabinet.onCalibrationDone?(matrix)
            }
            self.showOperatorScene()
        }
        show(scene)
    }
    public func exitToConsole() { cabinet.onExitToConsole?() }
    public func restartKiosk() { cabinet.onRestart?() }
    public var stateIsWritable: Bool { store.isWritable }
    /// The image's version and booted slot; the live kiosk reads it at start.
    public var systemVersion: SystemVersion {
        get { reporting.systemVersion }
        set { reporting.systemVersion = newValue }
    }
    public var updater: SystemUpdater { cabinet.updater }
}
