import Audio
import Display
import Input
import Platform
import UI
#if canImport(Glibc)
import Glibc
#endif

/// The `boardwalk` command: the kiosk, or one of its tools.
public enum Boardwalk {
    public static let usage = """
    usage: boardwalk [--config FILE] [--board NAME|FILE] [--state-dir DIR] [--data-dir DIR]
                     [--rotation 0|90|180|270] [--language en|zh] [--set section.key=value]...
           boardwalk --offscreen [--size WxH] [options above]   (the live kiosk without a display)
           boardwalk --headless [--size WxH] [--script FILE] [--shots DIR] [options above]
           boardwalk --headless --soak HOURS [--speed X] [--frame-step SECONDS]
                     [--report-every SECONDS] [--rss-limit MB] [options above]
           boardwalk input-replay DEVICE.desc RECORDING.events [--size WxH] [--rotation R] [--calibration a,b,c,d,e,f]
           boardwalk input-monitor   (live input as JSON lines)
           boardwalk display-test [options]
           boardwalk sound-export DIR [NAME...]   (the built-in sounds as wav files)
           boardwalk bookkeeping [--csv] [--state-dir DIR]   (plays, play time, coins, credits, uptime...)
           boardwalk --version   (the system's version, as the operator menu shows it)
    """

    /// The exit status of "Exit to console": the unit does not restart the kiosk on it
    /// (`RestartPreventExitStatus=`) and starts boardwalk-console.service instead.
    public static let exitToConsoleStatus: Int32 = 79
    /// "Start me again": a rotation change, or the operator's restart (EX_TEMPFAIL; the
    /// unit's Restart=always starts the kiosk again).
    public static let restartStatus: Int32 = 75

    public static func main(_ arguments: [String]) -> Int32 {
        if let first = arguments.first {
            switch first {
            case "input-replay": return inputReplayMain(Array(arguments.dropFirst()))
            case "input-monitor": return inputMonitorMain(Array(arguments.dropFirst()))
            case "display-test": return displayTestMain(Array(arguments.dropFirst()))
            case "sound-export": return soundExportMain(Array(arguments.dropFirst()))
            case "bookkeeping": return Bookkeeping.commandMain(Array(arguments.dropFirst()), games: GameCatalog.standard.ids)
            case "-h", "--help":
                print(usage)
                return 0
            case "--version":
                print(SystemVersion.read().version)
                return 0
            default: break
            }
        }
        var options = CommandLineOptions.parse(arguments)
        var headless = false
        var offscreen = false
        var script: String?
        var shots = "out/shots"
        var soakHours: Double?
        var speed = 0.0
        var frameStep = HeadlessRunner.panelFrameInterval
        var reportEvery = 3600.0
        var rssLimit = Double(Soak.defaultRSSLimit >> 20)
        var rest = options.remaining[...]
        var unknown: [String] = []
        while let a = rest.popFirst() {
            switch a {
            case "--headless": headless = true
            case "--offscreen": offscreen = true
            case "--script": script = rest.popFirst()
            case "--shots": shots = rest.popFirst() ?? shots
            case "--soak": soakHours = rest.popFirst().flatMap { Double($0) } ?? -1
            case "--speed": speed = rest.popFirst().flatMap { Double($0) } ?? -1
            case "--frame-step": frameStep = rest.popFirst().flatMap { Double($0) } ?? -1
            case "--report-every": reportEvery = rest.popFirst().flatMap { Double($0) } ?? -1
            case "--rss-limit": rssLimit = rest.popFirst().flatMap { Double($0) } ?? -1
            default: unknown.append(a)
            }
        }
        if !unknown.isEmpty {
            Log.error("unknown arguments: \(unknown.joined(separator: " "))")
            printToStandardError(usage)
            return 2
        }
        if !Files.exists(CommandLineOptions.defaultConfigPath) && options.configPath == CommandLineOptions.defaultConfigPath && headless {
            options.configPath = "/dev/null"
        }
        var config = Config.load(options, defaults: defaultSettings())
        config.logDiagnostics()

        if headless {
            return runHeadless(config: config, script: script, shots: shots, soakHours: soakHours, speed: speed,
                               frameStep: frameStep, reportEvery: reportEvery, rssLimit: rssLimit)
        }
        // The run begins (the state store writes) only once the first frame is on screen.
        let store = StateStore(directory: config.settings.kiosk.stateDir, beginsRun: false)
        let stateProblems = config.applyOperatorSettings(from: store, options: options)
        Config(settings: config.settings, diagnostics: stateProblems, files: []).logDiagnostics()
        let backoff = StartBackoff.fromEnvironment()
        do {
            // Offscreen: the live loop, input, sound and signals, frames to memory at 60 Hz.
            let size = offscreen ? (parseSize(config.settings.display.mode) ?? (1280, 800)) : nil
            let runner = try LiveRunner(config: config, options: options, store: store, backoff: backoff,
                                        offscreen: size.map { (width: $0.0, height: $0.1) })
            return runner.run()
        } catch {
            // One clear line for the journal; systemd restarts us, later each time.
            Log.error("\(error)")
            store.close()
            let delay = backoff.recordFailure()
            if delay > 0 {
                Log.notice("start failed \(backoff.failures) times in a row; waiting \(Int(delay)) s before the next try")
                StartBackoff.wait(seconds: delay)
            }
            return 1
        }
    }

    /// Defaults, with the data directory found beside the binary when it runs from a
    /// source checkout (.build/<config>/boardwalk) rather than from /usr/bin.
    static func defaultSettings() -> Settings {
        var s = Settings()
        if let root = sourceTreeRoot(), !Files.isDirectory(s.kiosk.dataDir + "/packs") {
            s.kiosk.dataDir = root + "/data"
        }
        return s
    }

    /// The checkout a binary under .build/ was built from, if it still is there.
    public static func sourceTreeRoot() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let parts = exe.split(separator: "/", omittingEmptySubsequences: false)
        guard let build = parts.firstIndex(of: ".build") else { return nil }
        let root = parts[..<build].joined(separator: "/")
        return Files.exists(root + "/Package.swift") ? root : nil
    }

    static func runHeadless(config: Config, script: String?, shots: String, soakHours: Double?, speed: Double,
                            frameStep: Double = HeadlessRunner.panelFrameInterval, reportEvery: Double = 3600,
                            rssLimit: Double = Double(Soak.defaultRSSLimit >> 20)) -> Int32 {
        var settings = config.settings
        let (width, height) = parseSize(settings.display.mode) ?? (1280, 800)
        // Headless runs keep their state apart unless told otherwise.
        if settings.kiosk.stateDir == Settings().kiosk.stateDir {
            settings.kiosk.stateDir = "out/headless-state"
        }
        // The screen of a headless run takes no real input: the tour script's PIN stands
        // in when none is set. The live kiosk has no such default.
        if settings.kiosk.operatorPIN == nil { settings.kiosk.operatorPIN = HeadlessRunner.tourPIN }
        do {
            try Files.makeDirectories(settings.kiosk.stateDir)
            try Files.makeDirectories(shots)
        } catch {
            Log.error("\(error)")
            return 1
        }
        let store = StateStore(directory: settings.kiosk.stateDir, now: 1)
        let runner: HeadlessRunner
        do {
            runner = try HeadlessRunner(settings: settings, width: width, height: height, store: store,
                                        catalog: .standard)
        } catch {
            Log.error("\(error)")
            return 1
        }
        if let soakHours {
            var soak = Soak(runner: runner, hours: soakHours, speed: speed, frameStep: frameStep)
            soak.reportInterval = reportEvery
            guard rssLimit >= 0, rssLimit.isFinite else {
                Log.error("soak: --rss-limit takes megabytes (0: no limit)")
                return 2
            }
            soak.rssLimit = Int(rssLimit * 1_048_576)
            return soak.run()
        }
        let text: String
        if let script {
            do { text = try Files.readText(script) } catch {
                Log.error("\(error)")
                return 1
            }
        } else {
            text = "wait 0.5\nshot menu\n"
        }
        do {
            let parsed = try HeadlessScript(text: text, file: script ?? "built-in")
            try runner.run(parsed, shotsDirectory: shots)
        } catch {
            Log.error("\(error)")
            return 1
        }
        store.close(now: runner.now)
        Log.info("headless: \(runner.framesDrawn) frames drawn, screenshots in \(shots)")
        return 0
    }

    static func parseSize(_ text: String?) -> (Int, Int)? {
        guard let text else { return nil }
        let mode = text.split(separator: "@").first.map(String.init) ?? text
        let parts = mode.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        return (w, h)
    }
}
