#if canImport(Glibc)
import Glibc
#endif
import Arcade
import Audio
import Display
import Input
import Platform
import UI

/// Input to photon on the offscreen presenter, as the live kiosk's loop runs it: taps at
/// moments unrelated to the 60 Hz vblank grid (a finger does not wait for the panel),
/// each from its time to the vblank of the frame that shows it, measured by the kiosk's
/// own figures (`Kiosk.inputToPhoton`, the metrics' histogram). A tap opens the first game
/// from the menu, the back key (Esc) goes home again (the game's home button wants a
/// hold): a pressed tile, a game's first frame, the menu's.
/// One row per panel size (the profiles' panels: 800x480 the official 7" displays,
/// 1280x800 the virtual boards', 1920x1080 an HDMI touch screen's usual mode).
/// Goal: p99 at most a refresh interval plus 4 ms.
func latencyBench(stateDirectory: String, taps: Int, sizes: [(Int, Int)]) -> [ReportRow] {
    sizes.flatMap { size in
        latencyRow(stateDirectory: stateDirectory + "/\(size.0)x\(size.1)", taps: taps, width: size.0, height: size.1)
    }
}

private func latencyRow(stateDirectory: String, taps: Int, width: Int, height: Int) -> [ReportRow] {
    let name = "input-to-photon-\(width)x\(height)-60hz"
    var settings = Settings()
    if let benchDataDirectory { settings.kiosk.dataDir = benchDataDirectory }
    settings.kiosk.stateDir = stateDirectory
    settings.kiosk.menuToAttractSeconds = 86400
    let presenter: PacedPresenter
    let timer: TimerFD
    do {
        presenter = try PacedPresenter(width: width, height: height, refreshRate: 60)
        timer = try TimerFD()
    } catch {
        return [ReportRow(section: "latency", name: name, figures: [], notes: [("error", "\(error)")])]
    }
    let store = StateStore(directory: stateDirectory, now: monotonicSeconds())
    let catalog = GameCatalog.standard
    let kiosk = Kiosk(screen: Screen(width: width, height: height), settings: settings, store: store,
                      sound: RecordingSoundBoard(), catalog: catalog, now: monotonicSeconds())
    let frames = FrameDriver(kiosk: kiosk, presenter: presenter, now: monotonicSeconds())
    // The live kiosk decodes each game's pictures off its loop once the menu is up
    // (`LiveRunner.warmUpGames`); a cabinet's taps come after that.
    for warmUp in catalog.games.compactMap(\.warmUp) { warmUp(kiosk.settings.kiosk.dataDir) }
    kiosk.keepInputToPhotonSamples()
    // The same moments every run (a linear congruential step; only the spread matters).
    var seed: UInt64 = 46
    func random() -> UInt64 {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return seed >> 33
    }
    // Where the finger lands, in the panel's pixels: the first game's tile on the menu.
    let screen = kiosk.screen
    guard let game = catalog.games.first, let tile = (screen.scene as? MenuScene)?.tile(for: game.id)?.rectInRoot else {
        return [ReportRow(section: "latency", name: name, figures: [], notes: [("error", "no menu tile to tap")])]
    }
    let x = (tile.midX + screen.contentOffset.x) * screen.scale, y = (tile.midY + screen.contentOffset.y) * screen.scale
    // A finger (or the back key): down, held a moment, up; the next a random while later.
    var script: [(at: Double, event: (Double) -> InputEvent)] = []
    var t = monotonicSeconds() + 0.5
    for n in 0..<taps {
        for isDown in [true, false] {
            script.append((t, n % 2 == 0
                ? { .touch(TouchEvent(phase: isDown ? .down : .up, id: n + 1, x: x, y: y, time: $0)) }
                : { .key(KeyEvent(key: .back, isPressed: isDown, time: $0)) }))
            t += isDown ? 0.06 + Double(random() % 40) / 1000 : 0.25 + Double(random() % 250) / 1000
        }
    }
    var next = 0
    let fd = presenter.pollDescriptor
    while next < script.count || !presenter.isReadyForFrame || kiosk.wantsFrame {
        let now = monotonicSeconds()
        if next < script.count, now >= script[next].at {
            kiosk.handle(script[next].event(now), now: now)
            next += 1
        }
        kiosk.tick(now: now)
        // As the live loop (`LiveRunner.drawIfNeeded`): at once, or paced before a vblank.
        var frameDue: Double?
        if presenter.isReadyForFrame, kiosk.wantsFrame {
            let due = frames.drawTime(now: now)
            if due > now { frameDue = due } else { _ = try? frames.drawFrame(now: now) }
        }
        // The loop's one wait: the vblank, or a timerfd (as the live loop's) for the next
        // finger, a paced frame or the kiosk's timers.
        let wake = [next < script.count ? script[next].at : nil, frameDue, kiosk.nextDeadline].compactMap { $0 }.min()
        if let wake { try? timer.arm(at: max(wake, monotonicSeconds() + 1e-6)) } else { try? timer.disarm() }
        var fds = [pollfd(fd: fd?.rawValue ?? -1, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: timer.fd.rawValue, events: Int16(POLLIN), revents: 0)]
        if poll(&fds, 2, wake == nil ? 100 : -1) > 0 {
            if fds[0].revents != 0 {
                try? presenter.handleReadable()
                frames.noteShown()
            }
            if fds[1].revents != 0 { _ = try? timer.read() }
        }
        if monotonicSeconds() - t > 5 { break }
    }
    kiosk.shutdown(now: monotonicSeconds())
    // Every other input opens the game: fewer plays mean taps that missed.
    let opened = store.plays(game: game.id)
    guard opened == (taps + 1) / 2 else {
        return [ReportRow(section: "latency", name: name, figures: [("games_opened", Double(opened))],
                          notes: [("error", "\((taps + 1) / 2) taps on the \(game.id) tile opened it \(opened) times (the back key goes home)")])]
    }
    let samples = kiosk.inputToPhotonSamples.sorted()
    guard !samples.isEmpty else {
        return [ReportRow(section: "latency", name: name, figures: [], notes: [("error", "no input was shown")])]
    }
    func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int(Double(samples.count) * p))] }
    let goal = 1 / presenter.refreshRate + 0.004
    return [ReportRow(section: "latency", name: name, figures: [
        ("inputs", Double(samples.count)), ("games_opened", Double(opened)), ("p50_ms", percentile(0.5) * 1000), ("p99_ms", percentile(0.99) * 1000),
        ("max_ms", samples.last! * 1000), ("goal_ms", goal * 1000), ("p99_over_goal", percentile(0.99) / goal),
    ])]
}
