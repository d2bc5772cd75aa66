import Platform

/// The kiosk's figures as Prometheus metrics (`MetricsText`), written by `MetricsWriter`
/// from `Kiosk.tick`. Names: docs/FLEET.md.
struct MetricsSnapshot {
    var books: Bookkeeping
    var version: SystemVersion
    /// Seconds since this kiosk process started.
    var runSeconds: Double
    var cpuSeconds: Double
    var figures: RunFigures
    var credits: Int
    var stateWritable: Bool

    var text: String {
        var m = MetricsText()
        let counters = books.counters
        func counter(_ key: String) -> Double { Double(counters[key] ?? 0) }

        m.family("boardwalk_build_info", .gauge, "The system image's version and id and the booted root slot (\"unknown\" when not known); always 1.")
        m.sample("boardwalk_build_info", [("version", version.version), ("image_id", version.imageID), ("slot", version.slot)], 1)

        m.family("boardwalk_plays_total", .counter, "Games started, per game (the operator's reset of the books zeroes it).")
        for game in books.games { m.sample("boardwalk_plays_total", [("game", game)], counter(CounterKey.plays(game))) }
        m.family("boardwalk_play_seconds_total", .counter, "Seconds played, per game (counted when a player leaves the game).")
        for game in books.games { m.sample("boardwalk_play_seconds_total", [("game", game)], counter(CounterKey.playTime(game))) }

        m.single("boardwalk_coins_total", .counter, "Coins inserted into the cabinet.", counter(CounterKey.coins))
        m.single("boardwalk_credits_bought_total", .counter, "Credits bought with coins.", counter(CounterKey.creditsBought))
        m.single("boardwalk_credits_used_total", .counter, "Credits spent on games.", counter(CounterKey.creditsUsed))
        m.single("boardwalk_credits", .gauge, "Credits on the meter now.", Double(credits))
        m.single("boardwalk_state_writable", .gauge,
                 "1 while the state partition takes writes; 0 when it is full, read-only or missing (scores, settings and coins are then kept in memory, and credits mode refuses coins).",
                 stateWritable ? 1 : 0)
        m.single("boardwalk_coins_refused_total", .counter,
                 "Coins refused in credits mode because the state partition could not record them (since the kiosk started).",
                 counter(CounterKey.coinsRefused))
        m.single("boardwalk_starts_total", .counter, "Kiosk starts that reached the first frame.", counter(CounterKey.starts))
        m.single("boardwalk_crashes_total", .counter, "Runs that ended without saving (a crash, a kill, a power cut).", counter(CounterKey.crashes))
        m.single("boardwalk_watchdog_restarts_total", .counter, "Runs stopped by systemd's watchdog (a frozen frame loop).",
                 counter(CounterKey.watchdogRestarts))
        m.single("boardwalk_uptime_seconds_total", .counter, "Seconds the kiosk has run since the books were last reset.",
                 counter(CounterKey.uptime))
        m.single("boardwalk_process_uptime_seconds", .gauge, "Seconds since this kiosk process started.", runSeconds.rounded())
        m.single("boardwalk_cpu_seconds_total", .counter, "CPU time of the kiosk process, every thread.", cpuSeconds)
        if let idle = figures.idleCPURatio {
            m.single("boardwalk_idle_cpu_ratio", .gauge,
                     "Share of one core the kiosk used over its latest whole minute without drawing a frame.", idle)
        }
        m.histogram("boardwalk_frame_seconds", "Time to draw and present a frame.", figures.frames)
        m.histogram("boardwalk_input_to_photon_seconds",
                    "From a touch or key's kernel timestamp to the vblank of the frame that shows its result.",
                    figures.inputToPhoton)
        m.single("boardwalk_input_to_photon_max_seconds", .gauge,
                 "The longest input-to-photon time since the kiosk started.", figures.inputToPhoton.max)
        return m.text
    }
}

/// What the kiosk reports about itself, and the state that takes: frame times and CPU
/// (`RunFigures`), the image's version, and the metrics file (`MetricsWriter`), written
/// from `Kiosk.tick` once a minute.
final class KioskReporting {
    /// Seconds of an untouched menu that count as idle (also with the attract mode off).
    static let idleMenuSeconds = 120.0

    let figures = RunFigures()
    private(set) var writer: MetricsWriter?
    var cpuClock: () -> Double = RunFigures.processCPUSeconds
    /// The image's version and booted slot (`SystemVersion.swift`); the live kiosk reads it.
    var systemVersion = SystemVersion()
    let startedAt: Double

    init(startedAt: Double) { self.startedAt = startedAt }

    /// Starts (or stops, or moves) the metrics file after the settings changed.
    func apply(_ settings: Settings.Metrics) {
        let directory = settings.textfileDirectory()
        guard directory != writer?.directory else { return }
        writer = directory.map { MetricsWriter(directory: $0) }
    }

    var deadline: Double? { writer?.nextDeadline }

    /// The run began (the first frame, its start counted): the next tick writes the metrics
    /// file, so a fleet sees the restart within a scrape (`BoardwalkKioskRestarted` reads
    /// `boardwalk_starts_total`), not up to a minute later.
    func runBegan() { writer?.writeAtNextTry() }

    /// The metrics as they stand now.
    func snapshot(of kiosk: Kiosk, cpuSeconds: Double) -> MetricsSnapshot {
        MetricsSnapshot(books: kiosk.store.bookkeeping(games: kiosk.shelf.catalog.ids, now: kiosk.now), version: systemVersion,
                        runSeconds: kiosk.now - startedAt, cpuSeconds: cpuSeconds, figures: figures,
                        credits: kiosk.coins.meter.credits, stateWritable: kiosk.store.isWritable)
    }

    /// From `tick`: the activity file, and the metrics file when a minute has passed.
    func tick(_ kiosk: Kiosk) {
        let now = kiosk.now
        writer?.writeActivity(Self.activity(kiosk.mode, isClosed: kiosk.panel.isClosed,
                                            idleFor: now - kiosk.panel.lastInput), now: now)
        guard let writer, now >= writer.nextDeadline else { return }
        let cpu = cpuClock()
        figures.closeWindow(now: now, cpuSeconds: cpu)
        writer.writeIfDue(now: now) { snapshot(of: kiosk, cpuSeconds: cpu).text }
    }

    /// `boardwalk_activity`'s state: whether a reboot now would interrupt anyone.
    static func activity(_ mode: Kiosk.Mode, isClosed: Bool, idleFor: Double) -> String {
        switch mode {
        case .attract: return "idle"
        case .closed: return "closed"
        case .pin, .operatorMenu, .calibration: return "service"
        case .menu where isClosed: return "closed"
        case .menu where idleFor >= idleMenuSeconds: return "idle"
        default: return isClosed ? "closed" : "play"
        }
    }
}
