import GameCore
import Graphics
import Platform
import UI
#if canImport(Glibc)
import Glibc
#endif

/// `boardwalk --headless --soak HOURS --speed X`: the attract mode and random touches
/// through every game for HOURS of simulated time, as fast as it goes (speed 0) or at X
/// times real time. Prints RSS and frame times every simulated hour; fails (exit status 1)
/// on RSS over 40 MB at any report, growth over 2 MB after the first report or a scene
/// that stops drawing. A crash ends the process with a signal, which is a non-zero exit
/// status too.
///
/// Everything is seeded and the clock is virtual, so two runs from the same (empty) state
/// directory make the same touches at the same simulated times and draw the same frames.
public struct Soak {
    let runner: HeadlessRunner
    let hours: Double
    let speed: Double
    /// Seeds the touches and the choice of what the visitor does next.
    public var seed: UInt64 = 0x50A4_B0A2_D0A1_4B1E
    /// Simulated seconds between reports (an hour; tests use less).
    public var reportInterval: Double = 3600
    /// RSS may grow at most this much over its value at the first report.
    public var growthLimit: Int = 2 << 20
    /// RSS may be at most this much at any report (0: no limit; `--rss-limit MB`).
    public var rssLimit: Int = Soak.defaultRSSLimit
    /// 40 MB: the kiosk up to 1280x800 with its headless scan-out copy (two frames of
    /// 4 MB there); a bigger panel's frames and kept pictures need more.
    public static let defaultRSSLimit = 40 << 20
    /// A live scene (attract mode, a running game) that draws nothing for this long is stuck.
    public var stuckAfter: Double = 60
    /// Simulated seconds between frames while nobody touches the screen (waits, attract
    /// mode); touches and swipes always run at 60 frames a second. 1/60 is what a cabinet
    /// does; a coarser step (at most 0.25 s: the games' models take steps up to that)
    /// covers a day in less time.
    public var frameStep: Double = HeadlessRunner.panelFrameInterval
    /// Where report lines go.
    public var output: (String) -> Void = { line in
        print(line)
        fflush(nil)  // all streams: stdout is block-buffered in a pipe
    }

    public init(runner: HeadlessRunner, hours: Double, speed: Double, frameStep: Double = HeadlessRunner.panelFrameInterval) {
        self.runner = runner
        self.hours = hours
        self.speed = speed
        self.frameStep = frameStep
    }

    /// What one report said; kept so callers (tests) can check the run.
    public struct Report: Sendable {
        public var simulatedSeconds: Double
        public var rss: Int
        public var framesDrawn: Int
        public var frameMedian: Double
        public var frameP99: Double
        public var frameMax: Double
        public var damagedFraction: Double
        public var memory: MemoryCensus
    }

    /// Where the memory is at a report: the kernel's and glibc's view, the pixel buffers,
    /// the kept surfaces and the view trees, so RSS growth can be pinned on one of them.
    public struct MemoryCensus: Sendable {
        /// Resident anonymous memory (heap, mmap'd pixels) and file pages (code, fonts).
        public var rssAnon: Int
        public var rssFile: Int
        public var malloc: MallocStats
        public var surfaces: Int
        public var surfaceBytes: Int
        public var caches: SurfaceCacheCensus
        public var views: Int
        public var scenes: Int

        public static func current() -> MemoryCensus {
            let s = Surface.census
            let rss = residentSplit()
            return MemoryCensus(rssAnon: rss.anon, rssFile: rss.file, malloc: .current(),
                                surfaces: s.count, surfaceBytes: s.bytes, caches: .current(),
                                views: View.liveCount, scenes: Scene.liveSceneCount)
        }
    }

    public func run() -> Int32 {
        var state = SoakState(soak: self)
        return state.run()
    }

    /// The figures of a run, for callers that want more than the exit status.
    public func runCollecting() -> (status: Int32, reports: [Report], gamesOpened: [String: Int]) {
        var state = SoakState(soak: self)
        let status = state.run()
        return (status, state.reports, state.opened)
    }
}

/// The mutable side of a soak: the random visitor, the clock, the figures.
private struct SoakState {
    let soak: Soak
    var runner: HeadlessRunner { soak.runner }
    var kiosk: Kiosk { soak.runner.kiosk }
    var rng: SeededRandom
    let start: Double
    let end: Double
    let wallStart = monotonicSeconds()
    var nextReport: Double
    var lastDrawnAt: Double
    var lastFrames: Int
    var samples: [Double] = []
    var damagedSum = 0.0
    var framesThisInterval = 0
    var baselineRSS: Int?
    var failure: String?
    var growthFailure: String?
    var rssFailure: String?
    var reports: [Soak.Report] = []
    var opened: [String: Int] = [:]
    var missing: Set<String> = []
    var attractSeconds = 0.0
    var touches = 0

    init(soak: Soak) {
        self.soak = soak
        rng = SeededRandom(seed: soak.seed)
        start = soak.runner.now
        end = start + max(0, soak.hours) * 3600
        nextReport = start + soak.reportInterval
        lastDrawnAt = start
        lastFrames = soak.runner.framesDrawn
    }

    var done: Bool { failure != nil || runner.now >= end - 1e-9 }

    mutating func run() -> Int32 {
        guard soak.hours > 0, soak.hours.isFinite, soak.speed >= 0, soak.speed.isFinite else {
            Log.error("soak: HOURS must be a positive number and --speed 0 (as fast as it goes) or more")
            return 2
        }
        guard soak.frameStep >= HeadlessRunner.panelFrameInterval - 1e-9, soak.frameStep <= 0.25 else {
            Log.error("soak: the frame step must be from 1/60 to 0.25 s")
            return 2
        }
        guard soak.reportInterval >= 1, soak.reportInterval.isFinite else {
            Log.error("soak: the report interval must be 1 s or more")
            return 2
        }
        let games = kiosk.catalog.ids.filter { kiosk.settings.kiosk.enabledGames.contains($0) }
        soak.output("soak: \(soak.hours) simulated hours at \(soak.speed == 0 ? "full speed" : "\(soak.speed)x real time"), "
            + "a frame every \(decimals(soak.frameStep * 1000, 1)) ms when idle, "
            + "\(kiosk.screen.pixelWidth)x\(kiosk.screen.pixelHeight), games \(games.joined(separator: ","))")
        while !done {
            switch kiosk.mode {
            case .attract:
                wait(rng.double(in: 20...120))
                // Someone walks up most of the time; otherwise the attract mode rotates on.
                if rng.unit() < 0.6 { tapRandom() }
            case .menu:
                if !games.isEmpty && rng.unit() < 0.7 {
                    let id = games[rng.below(games.count)]
                    kiosk.open(game: id)
                    if kiosk.mode == .game(id) {
                        opened[id, default: 0] += 1
                        advance(HeadlessRunner.panelFrameInterval)
                    } else if !missing.contains(id) {
                        missing.insert(id)
                        soak.output("soak: note: game \(id) has no scene yet; skipped")
                    }
                    if kiosk.mode != .game(id) { wait(rng.double(in: 5...90)) }
                } else {
                    // Taps on the menu open games through their tiles, or nothing.
                    if rng.unit() < 0.5 { tapRandom() }
                    wait(rng.double(in: 5...90))
                }
            case .game:
                play(seconds: rng.double(in: 10...180))
                if rng.unit() < 0.4 { kiosk.goHome(); advance(HeadlessRunner.panelFrameInterval) }
                // Otherwise the player walks away: idle to menu, then the attract mode.
            case .initials, .highScores, .continuing:
                // Some type their initials, some walk away (the timeout and idle take over).
                if rng.unit() < 0.5 { tapRandom() }
                wait(rng.double(in: 2...40))
            case .pin, .operatorMenu, .calibration, .closed:
                // Random touches never make the operator gesture; if one did, leave.
                kiosk.goHome()
                advance(HeadlessRunner.panelFrameInterval)
            }
        }
        if failure == nil && runner.now > nextReport - soak.reportInterval + 1 { report() }
        if failure == nil { failure = [rssFailure, growthFailure].compactMap { $0 }.joined(separator: "; ").nilIfEmpty }
        let wall = monotonicSeconds() - wallStart
        if let failure {
            soak.output("soak: FAILED at \(hms(runner.now - start)): \(failure)")
            return 1
        }
        let opens = opened.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        soak.output("soak: passed: \(hms(runner.now - start)) simulated in \(decimals(wall, 1)) s, "
            + "\(runner.framesDrawn) frames drawn, \(touches) touches, attract \(hms(attractSeconds)), opened \(opens)")
        return 0
    }

    /// A player in a game: taps, swipes and two-finger taps at a human pace.
    mutating func play(seconds: Double) {
        let stop = runner.now + seconds
        while !done && runner.now < stop, case .game = kiosk.mode {
            let r = rng.unit()
            if r < 0.65 {
                tapRandom()
            } else if r < 0.95 {
                let size = kiosk.screen.size
                let from = (rng.double(in: 0.1...0.9) * size.width, rng.double(in: 0.15...0.9) * size.height)
                let length = rng.double(in: 80...250)
                let angle = Double(rng.below(4)) * Double.pi / 2 + rng.double(in: -0.2...0.2)
                let to = (min(max(from.0 + cos(angle) * length, 1), size.width - 1),
                          min(max(from.1 + sin(angle) * length, 1), size.height - 1))
                runner.swipe(from: from, to: to, seconds: rng.double(in: 0.1...0.35))
                touches += 1
                afterInput()
            } else {
                let a = randomPoint(), b = randomPoint()
                runner.tap([a, b])
                touches += 1
                afterInput()
            }
            wait(rng.double(in: 0.2...3))
        }
    }

    /// Clear of the corners: two fingers there are the operator gesture.
    mutating func randomPoint() -> (Double, Double) {
        let size = kiosk.screen.size
        return (rng.double(in: 0.08...0.92) * size.width, rng.double(in: 0.08...0.92) * size.height)
    }

    mutating func tapRandom() {
        let p = randomPoint()
        runner.tap([p])
        touches += 1
        afterInput()
    }

    /// Checks and reports after frames the runner drew on its own (taps, swipes).
    mutating func afterInput() {
        if runner.framesDrawn != lastFrames {
            lastFrames = runner.framesDrawn
            lastDrawnAt = runner.now
        }
        while !done && runner.now >= nextReport { report() }
    }

    /// Lets time pass a frame at a time, timing each frame that draws.
    mutating func wait(_ seconds: Double) {
        let stop = min(end, runner.now + seconds)
        while !done && runner.now + 1e-9 < stop {
            let step = min(soak.frameStep, stop - runner.now)
            advance(step, step: max(step, HeadlessRunner.panelFrameInterval))
        }
    }

    mutating func advance(_ seconds: Double, step: Double = HeadlessRunner.panelFrameInterval) {
        let before = monotonicSeconds()
        runner.advance(seconds, step: step)
        let cost = monotonicSeconds() - before
        if case .attract = kiosk.mode { attractSeconds += seconds }
        if runner.framesDrawn != lastFrames {
            lastFrames = runner.framesDrawn
            lastDrawnAt = runner.now
            samples.append(cost)
            framesThisInterval += 1
            let screen = kiosk.screen
            damagedFraction(screen.lastDamage.area, screen.pixelWidth * screen.pixelHeight)
        } else if isLive && runner.now - lastDrawnAt > soak.stuckAfter {
            fail("\(kiosk.mode) is live but drew nothing for \(Int(soak.stuckAfter)) s")
        }
        if runner.now >= nextReport { report() }
        pace()
    }

    mutating func damagedFraction(_ area: Int, _ total: Int) {
        damagedSum += Double(min(area, total)) / Double(max(1, total))
    }

    /// Attract mode always moves; a game moves when it says it is live.
    var isLive: Bool {
        switch kiosk.mode {
        case .attract: return true
        case .game: return kiosk.screen.scene?.isLive ?? false
        default: return false
        }
    }

    /// At X times real time, sleeps until the wall clock catches up with the simulation.
    func pace() {
        guard soak.speed > 0 else { return }
        let due = wallStart + (runner.now - start) / soak.speed
        let ahead = due - monotonicSeconds()
        if ahead > 0.002 {
            var request = timespec(tv_sec: Int(ahead), tv_nsec: Int((ahead - Double(Int(ahead))) * 1e9))
            nanosleep(&request, nil)
        }
    }

    mutating func fail(_ why: String) {
        if failure == nil { failure = why }
    }

    mutating func report() {
        let rss = residentBytes()
        samples.sort()
        func at(_ q: Double) -> Double { samples.isEmpty ? 0 : samples[min(samples.count - 1, Int(Double(samples.count) * q))] }
        let r = Soak.Report(simulatedSeconds: runner.now - start, rss: rss, framesDrawn: framesThisInterval,
                            frameMedian: at(0.5), frameP99: at(0.99), frameMax: samples.last ?? 0,
                            damagedFraction: framesThisInterval > 0 ? damagedSum / Double(framesThisInterval) : 0,
                            memory: .current())
        reports.append(r)
        var growth = ""
        if let baseline = baselineRSS {
            let delta = rss - baseline
            growth = " (\(delta >= 0 ? "+" : "")\(decimals(Double(delta) / 1_048_576, 2)) MB since the first report)"
            // Not fatal at once: the rest of the run shows whether it is a leak (it keeps
            // growing) or a cache filling late (it stops); the exit status fails either way.
            if delta > soak.growthLimit && growthFailure == nil {
                growthFailure = "RSS grew \(decimals(Double(delta) / 1_048_576, 2)) MB by \(hms(r.simulatedSeconds)) "
                    + "over the first report (limit \(decimals(Double(soak.growthLimit) / 1_048_576, 1)) MB)"
            }
        } else {
            baselineRSS = rss
        }
        if soak.rssLimit > 0 && rss > soak.rssLimit && rssFailure == nil {
            rssFailure = "RSS \(decimals(Double(rss) / 1_048_576, 2)) MB at \(hms(r.simulatedSeconds)) "
                + "(limit \(decimals(Double(soak.rssLimit) / 1_048_576, 1)) MB)"
        }
        soak.output("soak: \(hms(r.simulatedSeconds)) rss \(decimals(Double(rss) / 1_048_576, 2)) MB\(growth), "
            + "\(r.framesDrawn) frames drawn, frame median \(decimals(r.frameMedian * 1000, 3)) ms "
            + "p99 \(decimals(r.frameP99 * 1000, 3)) ms max \(decimals(r.frameMax * 1000, 2)) ms, "
            + "damaged \(decimals(r.damagedFraction * 100, 1))%, "
            + "opened \(opened.values.reduce(0, +)), touches \(touches), mode \(kiosk.mode), wall \(decimals(monotonicSeconds() - wallStart, 1)) s")
        let m = r.memory, k = m.caches
        func mb(_ bytes: Int) -> String { decimals(Double(bytes) / 1_048_576, 2) }
        soak.output("soak:   memory MB: anon \(mb(m.rssAnon)) file \(mb(m.rssFile)); malloc heap \(mb(m.malloc.arena)) = "
            + "in use \(mb(m.malloc.inUse)) + free \(mb(m.malloc.free)) (top \(mb(m.malloc.releasable))), mmapped \(mb(m.malloc.mmapped)); "
            + "surfaces \(m.surfaces) = \(mb(m.surfaceBytes)); "
            + "kept \(mb(k.totalBytes)) of \(mb(k.budget)) = shadows \(k.shadows.count) = \(mb(k.shadows.bytes)) (\(k.shadows.made) made), "
            + "pictures \(k.pictures.count) = \(mb(k.pictures.bytes)) (\(k.pictures.made) made), scaled \(k.scaled.count) = \(mb(k.scaled.bytes)) (\(k.scaled.made) made), "
            + "emoji \(k.emoji.count) = \(mb(k.emoji.bytes)) (\(k.emoji.made) made), lines \(k.lines.count) = \(mb(k.lines.bytes)) (\(k.lines.made) made), "
            + "ellipses \(k.ellipses.count) = \(mb(k.ellipses.bytes)) (\(k.ellipses.made) made), "
            + "glyphs \(k.glyphs.count) = \(mb(k.glyphs.bytes)) (\(k.glyphs.made) made); views \(m.views), scenes \(m.scenes)")
        samples.removeAll(keepingCapacity: true)
        damagedSum = 0
        framesThisInterval = 0
        nextReport += soak.reportInterval
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

private func hms(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    let h = s / 3600, m = s % 3600 / 60, sec = s % 60
    return "\(h)h\(m < 10 ? "0" : "")\(m)m\(sec < 10 ? "0" : "")\(sec)s"
}

/// `value` with `digits` decimals, without Foundation's formatting.
private func decimals(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var p = 1.0
    for _ in 0..<digits { p *= 10 }
    let scaled = (abs(value) * p).rounded()
    let whole = Int(scaled / p)
    var frac = String(Int(scaled) - whole * Int(p))
    while frac.count < digits { frac = "0" + frac }
    return (value < 0 && scaled > 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + frac : "")
}

/// Resident anonymous and file-backed bytes, from /proc/self/status (RssAnon, RssFile).
func residentSplit() -> (anon: Int, file: Int) {
    guard let text = try? Files.readText("/proc/self/status") else { return (0, 0) }
    var anon = 0, file = 0
    for line in text.split(separator: "\n") {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, let kb = Int(fields[1]) else { continue }
        if fields[0] == "RssAnon:" { anon = kb * 1024 }
        if fields[0] == "RssFile:" { file = kb * 1024 }
    }
    return (anon, file)
}

/// Resident set size in bytes, from /proc/self/statm.
public func residentBytes() -> Int {
    guard let text = try? Files.readText("/proc/self/statm") else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
