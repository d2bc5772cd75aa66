import Audio
import Display
import Graphics
import Input
import Platform
import ScreenGeometry
import UI
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk on real hardware: one thread polls the DRM fd (page-flip events are the frame
/// clock), every evdev fd and the inotify fd on /dev/input, a timerfd and a signalfd; the
/// audio thread runs apart. Nothing to draw means no flip and no wake-up.
/// `offscreen` puts the same loop on a PacedPresenter (memory, flips on a timer) for a
/// machine without a display.
public final class LiveRunner {
    private var config: Config
    private let options: CommandLineOptions
    private let loop = EventLoop()
    private let signals: SignalFD
    private let timer: TimerFD
    private var presenter: any Presenter
    /// The DRM presenter, when there is one: its connector is checked for hotplug.
    private let drm: DRMPresenter?
    private let input: InputSystem
    /// Made after the first frame: synthesizing the effects takes a while on a slow
    /// board, and the menu should be on screen (and systemd told) first.
    private var audio: AudioEngine?
    private let audioConfig: AudioConfig
    private let sound = DeferredSoundBoard()
    private let store: StateStore
    private let kiosk: Kiosk
    private let frames: FrameDriver
    private let notify: SystemdNotify?
    private var inputWatches: [FileDescriptor: EventLoop.Token] = [:]
    private var presenterWatch: EventLoop.Token?
    private var sentReady = false
    /// When a paced frame (one that answers no input) is to be drawn.
    private var frameDue: Double?
    private var exitCode: Int32 = 0
    private var nextConnectorCheck = 0.0
    private let backoff: StartBackoff

    public init(config: Config, options: CommandLineOptions, store: StateStore,
                backoff: StartBackoff = StartBackoff(directory: nil),
                offscreen: (width: Int, height: Int)? = nil) throws {
        self.config = config
        self.backoff = backoff
        self.options = options
        let settings = config.settings
        // Signals first, so a SIGTERM during start-up is not lost.
        signals = try SignalFD()
        timer = try TimerFD()
        notify = SystemdNotify.fromEnvironment()

        let rotation = settings.display.rotation
        if let offscreen {
            let logical = rotation.swapped(offscreen.width, offscreen.height)
            presenter = try PacedPresenter(width: logical.width, height: logical.height, rotation: rotation)
            drm = nil
            Log.info("display: offscreen \(offscreen.width)x\(offscreen.height), rotation \(rotation), flips paced at 60 Hz")
        } else {
            let device = try DRMPresenter(config: DisplayConfig(
                cardPath: settings.display.card, connector: settings.display.connector, mode: settings.display.mode,
                format: settings.display.format, rotation: rotation, ttyPath: settings.display.tty, locksVT: true))
            presenter = device
            drm = device
        }

        // Touch is turned back by the presenter's own rotation (one definition, ScreenGeometry).
        let panel = presenter.rotation.swapped(PixelSize(presenter.width, presenter.height))
        var inputConfig = InputConfig(
            transform: TouchTransform(displayWidth: panel.width, displayHeight: panel.height,
                                      rotation: presenter.rotation,
                                      calibration: CalibrationMatrix(parsingValues: settings.touch.calibration),
                                      swapAxes: settings.touch.swapXY, invertX: settings.touch.invertX,
                                      invertY: settings.touch.invertY),
            touchDeviceMatch: settings.touch.device, keyboards: settings.input.keyboards)
        inputConfig.coin = settings.coin
        input = InputSystem(config: inputConfig)

        var audioConfig = AudioConfig()
        audioConfig.device = settings.audio.pcm
        audioConfig.mixerControls = settings.audio.mixerControls  // every one: AC97 boots with Master and PCM muted
        audioConfig.periodFrames = settings.audio.periodFrames
        audioConfig.periods = settings.audio.bufferPeriods
        audioConfig.masterVolume = Float(min(settings.audio.volume, settings.audio.volumeMax)) / 100
        // The operator's sounds, each used in place of the synthesized one (a file that
        // will not load is logged and the built-in sound plays).
        audioConfig.soundFiles = SoundLibrary.overrides(inDirectory: settings.audio.soundsDir)
        self.audioConfig = audioConfig

        self.store = store
        let screen = Screen(width: presenter.width, height: presenter.height)
        kiosk = Kiosk(screen: screen, settings: settings, store: store,
                      sound: sound,
                      catalog: .standard, now: monotonicSeconds())
        frames = FrameDriver(kiosk: kiosk, presenter: presenter, now: monotonicSeconds())
        let version = SystemVersion.read()
        kiosk.systemVersion = version
        kiosk.cabinet.updater = RaucUpdater()
        kiosk.cabinet.asksForUSBSticksThroughRuntimeDirectory()
        // The PIN's PBKDF2 must not stop the frames and the watchdog's feeding.
        kiosk.cabinet.worksInBackground = true
        Log.notice("system: \(version.summary)")
        wireKiosk()
    }

    private func wireKiosk() {
        let backlight = Backlight()
        let cabinet = kiosk.cabinet
        cabinet.brightnessReader = { backlight.percent() }
        cabinet.onBrightnessChange = { _ = backlight.setPercent($0) }
        cabinet.onVolumeChange = { [weak self] v in self?.audio?.setMasterVolume(Float(v) / 100) }
        // Screen care and closing time switch the panel through DPMS; without a DRM
        // display (offscreen) or without DPMS the kiosk blacks the picture instead.
        if let drm { cabinet.onPanelPower = { on in drm.setPanelPower(on) } }
        cabinet.onExitToConsole = { [weak self] in
            Log.notice("operator chose exit to console: the kiosk stays stopped; 'systemctl start boardwalk' (or a restart) brings it back")
            self?.exitCode = Boardwalk.exitToConsoleStatus
            self?.loop.stop()
        }
        cabinet.onRestart = { [weak self] in
            // A clean exit that systemd (Restart=always) follows with a fresh start.
            Log.notice("operator chose restart: the kiosk exits and systemd starts it again")
            self?.exitCode = Boardwalk.restartStatus
            self?.loop.stop()
        }
        cabinet.onRotationChange = { [weak self] _ in
            // A new rotation needs a new presenter and screen: restart cleanly; systemd
            // (Restart=always) brings the kiosk back with the saved setting.
            Log.notice("rotation changed; restarting to apply it")
            self?.exitCode = Boardwalk.restartStatus
            self?.loop.stop()
        }
        cabinet.onCalibrationModeChange = { [weak self] calibrating in
            guard let self else { return }
            var t = self.input.config.transform
            t.calibration = calibrating ? .identity : CalibrationMatrix(parsingValues: self.kiosk.settings.touch.calibration)
            self.input.updateTransform(t)
        }
        cabinet.onCalibrationDone = { [weak self] matrix in
            guard let self else { return }
            var t = self.input.config.transform
            t.calibration = CalibrationMatrix(parsingValues: matrix)
            self.input.updateTransform(t)
        }
    }

    /// Runs until SIGTERM/SIGINT or "exit to console"; returns the exit code.
    public func run() -> Int32 {
        loop.watch(fd: signals.fd) { [weak self] _ in self?.handleSignals() }
        loop.watch(fd: timer.fd) { [weak self] _ in
            guard let self else { return }
            logFailure("timer") { _ = try self.timer.read() }
            self.tick()
        }
        syncWatches()
        loop.beforeWait = { [weak self] in self?.beforeWait() }
        Log.info("kiosk running: \(presenter.width)x\(presenter.height), \(input.deviceSummaries.count) input devices")
        drawIfNeeded()
        do {
            try loop.run()
        } catch {
            Log.error("run loop: \(error)")
            exitCode = 1
        }
        shutdown()
        return exitCode
    }

    private func syncWatches() {
        if let fd = presenter.pollDescriptor, presenterWatch == nil {
            presenterWatch = loop.watch(fd: fd) { [weak self] _ in self?.handlePresenter() }
        }
        let wanted = Set(input.pollDescriptors)
        for (fd, token) in inputWatches where !wanted.contains(fd) {
            loop.cancel(token)
            inputWatches[fd] = nil
        }
        for fd in wanted where inputWatches[fd] == nil {
            inputWatches[fd] = loop.watch(fd: fd) { [weak self] _ in self?.handleInput(fd) }
        }
    }

    private func handleInput(_ fd: FileDescriptor) {
        let now = monotonicSeconds()
        for event in input.handleReadable(fd: fd, now: now) { kiosk.handle(event, now: now) }
        syncWatches()
        drawIfNeeded()
    }

    private func handlePresenter() {
        do { try presenter.handleReadable() } catch { Log.error("\(error)") }
        frames.noteShown()
        drawIfNeeded()
    }

    private func tick() {
        let now = monotonicSeconds()
        if let due = input.nextDeadline, due <= now {
            for event in input.handleDeadline(now: now) { kiosk.handle(event, now: now) }
            syncWatches()
        }
        if let drm, now >= nextConnectorCheck {
            nextConnectorCheck = now + DRMPresenter.connectorPollInterval
            do { try drm.checkConnector() } catch { Log.error("\(error)") }
        }
        kiosk.tick(now: now)
        drawIfNeeded()
    }

    /// Draws and flips when the screen is free and something changed; the flip event
    /// brings us back here for the next frame while a game is live.
    private func drawIfNeeded() {
        guard presenter.isReadyForFrame else { return }
        if presenter.width != kiosk.screen.pixelWidth || presenter.height != kiosk.screen.pixelHeight {
            // A monitor with another mode came back: the screen, layouts and touch mapping
            // are all for the old size. Restart cleanly; systemd brings us back at once.
            Log.notice("display size changed to \(presenter.width)x\(presenter.height); restarting to lay out again")
            exitCode = Boardwalk.restartStatus
            loop.stop()
            return
        }
        guard kiosk.wantsFrame || presenter.needsFullRedraw || !sentReady else { return }
        let now = monotonicSeconds()
        if sentReady {
            let due = frames.drawTime(now: now)
            frameDue = due > now ? due : nil
            if frameDue != nil { return }
        }
        logFailure("frame") { () throws(DisplayError) in try frames.drawFrame(now: now, force: !sentReady) }
        feedWatchdog(now: now)
        if !sentReady {
            sentReady = true
            logFailure("sd_notify") { try notify?.ready(status: "menu on screen") }
            Log.notice("first frame on screen")
            // Only a start that got this far writes state (crash count, start count, marker).
            store.beginRun(now: now)
            kiosk.reporting.runBegan()
            backoff.recordSuccess()
            loop.after(0.05) { [weak self] in
                self?.startAudio()
                self?.warmUpGames()
            }
        }
    }

    /// Each game's slow preparation (decoding its pictures) on a background thread, so the
    /// run loop never stalls on it; a game opened before it is done waits for it instead.
    private func warmUpGames() {
        let dataDirectory = kiosk.settings.kiosk.dataDir
        let jobs = kiosk.catalog.games.compactMap(\.warmUp)
        guard !jobs.isEmpty else { return }
        logFailure("warm-up") {
            try runInBackground("warm-up", nice: 10) {
                let started = monotonicSeconds()
                for job in jobs { job(dataDirectory) }
                Log.info("games warmed up in \(Int((monotonicSeconds() - started) * 1000)) ms")
            }
        }
    }

    /// The effects are rendered on a background thread (seconds on a small board: on the
    /// run loop they would hold up fingers and, under load, systemd's watchdog); the engine
    /// is made here on the run loop once they are ready.
    private func startAudio() {
        let config = audioConfig
        let effects = BackgroundResult("effects", inBackground: true, nice: 5) { AudioEngine.renderEffects(for: config) }
        startAudio(when: effects)
    }

    private func startAudio(when effects: BackgroundResult<SoundLibrary>) {
        guard let library = effects.value else {
            loop.after(0.05) { [weak self] in self?.startAudio(when: effects) }
            return
        }
        do {
            let engine = try AudioEngine(config: audioConfig, library: library)
            audio = engine
            sound.target = engine.soundBoard
            // The volume the kiosk wants now (attract, closing time) reaches the new mixer.
            kiosk.applyVolume()
        } catch {
            Log.warning("sound: \(error); running silent")
        }
    }

    private func feedWatchdog(now: Double) {
        _ = notify?.feedWatchdog(now: now)
    }

    /// Before each wait: arm the timer for the nearest deadline (a paced frame, idle, long
    /// press, state flush, hotplug retry, watchdog), or leave it off when nothing is due.
    private func beforeWait() {
        if frameDue != nil, !(presenter.isReadyForFrame && kiosk.wantsFrame) { frameDue = nil }
        var deadlines = [frameDue, kiosk.nextDeadline, input.nextDeadline, drm == nil ? nil : nextConnectorCheck].compactMap { $0 }
        if let period = notify?.watchdogTimerPeriod { deadlines.append(monotonicSeconds() + period) }
        logFailure("timer") {
            if let next = deadlines.min() {
                try timer.arm(at: max(next, monotonicSeconds() + 0.001))
            } else {
                try timer.disarm()
            }
        }
        // The watchdog is fed from here too: a loop that still turns is alive even when
        // nothing is drawn; a frozen loop never gets here.
        feedWatchdog(now: monotonicSeconds())
    }

    private func handleSignals() {
        let received: [Int32]
        do { received = try signals.read() } catch {
            Log.error("signals: \(error)")
            return
        }
        for signal in received {
            switch signal {
            case SIGTERM, SIGINT:
                Log.notice("\(SignalFD.name(signal)): stopping")
                loop.stop()
            case SIGHUP:
                reload()
            case SIGUSR1, SIGUSR2:
                presenter.handleVTSignal(signal)
                drawIfNeeded()
            default:
                break
            }
        }
    }

    private func reload() {
        logFailure("sd_notify") { try notify?.reloading() }
        var fresh = Config.load(options, defaults: Boardwalk.defaultSettings())
        fresh.applyOperatorSettings(from: store, options: options)
        fresh.logDiagnostics()
        kiosk.apply(fresh.settings)
        Log.notice("configuration reloaded from \(fresh.files.joined(separator: ", "))")
        logFailure("sd_notify") { try notify?.ready(status: "reloaded") }
    }

    private func shutdown() {
        logFailure("sd_notify") { try notify?.stopping() }
        kiosk.shutdown(now: monotonicSeconds())
        audio?.stop()
        presenter.shutdown()
    }
}

/// A call whose failure the loop survives: logged (the log folds repeats), never dropped.
private func logFailure<E: Error>(_ what: String, _ body: () throws(E) -> Void) {
    do { try body() } catch { Log.error("\(what): \(error)") }
}

extension CalibrationMatrix {
    init(parsingValues v: [Double]) {
        if v.count == 6 { self.init(v[0], v[1], v[2], v[3], v[4], v[5]) } else { self = .identity }
    }
}

/// Stands in for the mixer until it exists: effects asked for before then are dropped
/// (nobody has touched anything yet), the music asked for starts once sound is up.
final class DeferredSoundBoard: SoundBoard {
    private var music: Music?
    private var musicPaused = false
    var target: SoundBoard? {
        didSet {
            guard let target, let music else { return }
            target.playMusic(music)
            if musicPaused { target.pauseMusic() }
        }
    }

    func play(_ sound: Sound, gain: Float, pan: Float) { target?.play(sound, gain: gain, pan: pan) }
    func playMusic(_ music: Music) { self.music = music; musicPaused = false; target?.playMusic(music) }
    func pauseMusic() { musicPaused = true; target?.pauseMusic() }
    func resumeMusic() { musicPaused = false; target?.resumeMusic() }
    func stopMusic() { music = nil; target?.stopMusic() }
}
