import Arcade
import Audio
import Platform

/// Sound: how long the synth takes to make every clip, what mixing 16 voices (and the
/// menu's tune alone) costs per 256-frame period, and tap-to-first-sample latency through the real sink thread (on the
/// "default" PCM when it opens, else on a clock-paced model of a 256 x 4 device). The
/// deterministic mode (callgrind) leaves latency out: it sleeps and waits on a clock.
func audioBench(deterministic: Bool) -> [ReportRow] {
    var rows: [ReportRow] = []
    var start = monotonicSeconds()
    let effectsOnly = SoundLibrary(overrides: [:], renderMusic: false)
    let effectsSeconds = monotonicSeconds() - start
    start = monotonicSeconds()
    for tune in Music.allCases { _ = effectsOnly.clip(tune) }
    let musicSeconds = monotonicSeconds() - start
    rows.append(ReportRow(section: "audio", name: "synth",
                          figures: [("effects_ms", effectsSeconds * 1000), ("music_ms", musicSeconds * 1000)]))

    let cost = AudioBenchmark.mixingCost(library: effectsOnly, voices: 16, periodFrames: 256,
                                         periods: deterministic ? 200 : 4000)
    rows.append(ReportRow(section: "audio", name: "mix_16_voices_256_frames",
                          figures: [("median_pct_realtime", cost.median), ("p99_pct", cost.p99), ("max_pct", cost.max)]))

    // The idle menu's sound: its tune alone, the limiter idle.
    let music = AudioBenchmark.mixingCost(library: effectsOnly, voices: 1, periodFrames: 256,
                                          periods: deterministic ? 200 : 4000)
    rows.append(ReportRow(section: "audio", name: "mix_music_only_256_frames",
                          figures: [("median_pct_realtime", music.median), ("p99_pct", music.p99), ("max_pct", music.max)]))

    guard !deterministic else { return rows }
    let config = AudioConfig()
    do {
        // The idle menu's sound as the kiosk runs it: at each period a board profile uses
        // and at the default without a profile (256). Each wakes the sink once a period.
        // Real time, so not in the deterministic mode.
        var figures: [(String, Double)] = []
        let periods = Set(boardAudioProfiles().map(\.periodFrames) + [config.periodFrames]).sorted()
        for period in periods {
            var c = config
            c.periodFrames = period
            figures.append(("pct_of_a_core_\(period)_frames", try AudioBenchmark.idleCost(library: effectsOnly, config: c)))
        }
        rows.append(ReportRow(section: "audio", name: "idle_menu_music", figures: figures))

        let (latency, simulated) = try AudioBenchmark.tapLatency(library: effectsOnly, config: config, taps: 100)
        rows.append(ReportRow(section: "audio", name: "tap_to_first_sample",
                              figures: [("median_ms", latency.median * 1000), ("max_ms", latency.max * 1000)],
                              notes: [("device", simulated ? "simulated-\(config.periodFrames)x\(config.periods)" : config.device)]))

        // Each board profile's own period and buffer, on a clock-paced device of that shape
        // (the profiles' cards are not on this machine): what a tap costs on that cabinet.
        for profile in boardAudioProfiles() {
            var c = config
            c.periodFrames = profile.periodFrames
            c.periods = profile.periods
            let (latency, _) = try AudioBenchmark.tapLatency(library: effectsOnly, config: c, taps: 40, simulate: true)
            rows.append(ReportRow(section: "audio", name: "tap_to_first_sample-\(profile.name)",
                                  figures: [("median_ms", latency.median * 1000), ("max_ms", latency.max * 1000),
                                            ("period_ms", Double(profile.periodFrames) / 48),
                                            ("period_frames", Double(profile.periodFrames)), ("periods", Double(profile.periods))],
                                  notes: [("device", "simulated-\(profile.periodFrames)x\(profile.periods)")]))
        }
    } catch {
        Log.error("audio bench: \(error)")
    }
    return rows
}

/// The board profiles' [audio] period and buffer, read the way the kiosk reads them
/// (defaults, then the profile's lines), from the source tree's boards/ or the data dir's.
func boardAudioProfiles() -> [(name: String, periodFrames: Int, periods: Int)] {
    let candidates = [Boardwalk.sourceTreeRoot().map { $0 + "/boards" }, benchDataDirectory.map { $0 + "/boards" }]
    guard let directory = candidates.compactMap({ $0 }).first(where: { !Files.listDirectory($0).isEmpty }) else { return [] }
    var profiles: [(name: String, periodFrames: Int, periods: Int)] = []
    for file in Files.listDirectory(directory).sorted() where file.hasSuffix(".conf") {
        guard let text = try? Files.readText(directory + "/" + file) else { continue }
        var settings = Settings()
        for entry in ConfigFile.parse(text, origin: file).entries where entry.key.hasPrefix("audio.") {
            _ = Config.apply(entry, to: &settings)
        }
        profiles.append((String(file.dropLast(5)), settings.audio.periodFrames, settings.audio.bufferPeriods))
    }
    return profiles
}
