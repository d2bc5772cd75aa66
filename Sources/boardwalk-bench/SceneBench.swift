import Arcade
import Audio
import CPixman
import Display
import Graphics
import Input
import Platform
import UI
#if canImport(Glibc)
import Glibc
#endif

/// The kiosk as the headless runner drives it, but with drawing and copy-out timed apart:
/// the real Kiosk, Screen and HeadlessPresenter (the same copy-out as DRM) on a virtual
/// clock at 60 frames a second.
final class BenchRig {
    let kiosk: Kiosk
    let presenter: HeadlessPresenter
    let store: StateStore
    private(set) var now = 1.0
    var screen: Screen { kiosk.screen }
    var pixels: Int { screen.pixelWidth * screen.pixelHeight }

    private let stateDirectory: String
    nonisolated(unsafe) private static var count = 0

    /// Each rig keeps its state in its own new directory under `stateDirectory`, removed
    /// by `close()`: saved scores or plays would change what the menu draws.
    init(width: Int, height: Int, settings: Settings, stateDirectory parent: String) throws(DisplayError) {
        presenter = try HeadlessPresenter(width: width, height: height)
        BenchRig.count += 1
        stateDirectory = "\(parent)/\(BenchRig.count)"
        mkdir(stateDirectory, 0o700)
        store = StateStore(directory: stateDirectory, now: now)
        kiosk = Kiosk(screen: Screen(width: width, height: height), settings: settings, store: store,
                      sound: RecordingSoundBoard(), catalog: .standard, now: now)
        // The first frame, as the kiosk shows it after start-up.
        _ = frame()
    }

    func close() {
        store.close(now: now)
        removeStateDirectory(stateDirectory)
    }

    /// One frame: advance the clock, draw (everything when `full`), copy the damage out.
    @discardableResult
    func frame(full: Bool = false) -> (draw: Double, copy: Double, damage: DamageRegion) {
        now += HeadlessRunner.panelFrameInterval
        kiosk.tick(now: now)  // the loop's timers (idle, attract rotation), untimed as in the loop
        if full { screen.invalidateAll() }
        let t0 = monotonicSeconds()
        let damage = measuredFrame(kiosk, now)
        let t1 = monotonicSeconds()
        if !damage.isEmpty { try? presenter.present(screen.shadow, damage: damage) }
        let t2 = monotonicSeconds()
        return (t1 - t0, t2 - t1, damage)
    }

    /// Lets `seconds` pass, drawing (untimed) every `step` seconds: the games' models
    /// run fixed steps whatever the frame rate, so a coarse step reaches the same kind of
    /// moment for a fraction of the drawing.
    func run(_ seconds: Double, step: Double = HeadlessRunner.panelFrameInterval) {
        let end = now + seconds
        while now + step <= end + 1e-9 {
            now += step - HeadlessRunner.panelFrameInterval
            frame()
        }
    }

    /// Runs until `condition` holds or `limit` seconds pass; whether it held.
    func run(until condition: () -> Bool, limit: Double) -> Bool {
        var left = Int(limit / HeadlessRunner.panelFrameInterval)
        while !condition() && left > 0 {
            frame()
            left -= 1
        }
        return condition()
    }

    func tap(_ x: Double, _ y: Double) {
        kiosk.handle(.touch(TouchEvent(phase: .down, id: 1, x: x * screen.scale, y: y * screen.scale, time: now)), now: now)
        frame()
        kiosk.handle(.touch(TouchEvent(phase: .up, id: 1, x: x * screen.scale, y: y * screen.scale, time: now)), now: now)
        frame()
    }
}

/// Kept out of line so `valgrind --tool=callgrind` reports the cost of one drawn frame
/// (inclusive) under this name.
@inline(never)
func measuredFrame(_ kiosk: Kiosk, _ now: Double) -> DamageRegion {
    drawnFrames += 1
    return kiosk.renderFrame(now: now)
}

/// Calls of `measuredFrame`, to turn its inclusive instruction count into one frame's.
nonisolated(unsafe) var drawnFrames = 0

nonisolated(unsafe) var benchDataDirectory: String? = nil

/// What a scene row is: how to bring the kiosk there.
struct SceneCase {
    var name: String
    /// Games the kiosk may show (the attract mode rotates through them).
    var games: [String]
    var attract: Bool
    /// Seconds of autoplay before measuring: a busy moment of the game.
    var busySeconds: Double
}

struct SceneBenchOptions {
    var frames: Int
    var warmup: Int
    var sizes: [(Int, Int)]
    var busySeconds: Double
    var only: [String]?
    /// Seconds of measured frames per phase (0: no limit), but at least `minimumFrames`.
    var budget: Double
    var minimumFrames: Int
}

/// menu, attract and each catalogue game at each size; a game whose scene does not exist
/// yet is a row with a note, so it joins the bench once it is merged.
func sceneBench(_ options: SceneBenchOptions, stateDirectory: String) -> [ReportRow] {
    let catalog = GameCatalog.standard
    let ids = catalog.ids
    var cases = [SceneCase(name: "menu", games: ids, attract: false, busySeconds: 0.5),
                 SceneCase(name: "attract", games: ids, attract: true, busySeconds: 2)]
    for id in ids {
        cases.append(SceneCase(name: "game-\(id)", games: [id], attract: true, busySeconds: options.busySeconds))
    }
    if let only = options.only { cases = cases.filter { only.contains($0.name) } }
    var rows: [ReportRow] = []
    for (w, h) in options.sizes {
        for c in cases {
            rows.append(measureScene(c, width: w, height: h, options: options, stateDirectory: stateDirectory))
        }
    }
    return rows
}

private func measureScene(_ c: SceneCase, width: Int, height: Int, options: SceneBenchOptions,
                          stateDirectory: String) -> ReportRow {
    let name = "\(c.name)-\(width)x\(height)"
    var settings = Settings()
    // The source tree's packs and art: without them Guess Picture measures an empty quiz.
    if let benchDataDirectory { settings.kiosk.dataDir = benchDataDirectory }
    settings.kiosk.enabledGames = c.games
    settings.kiosk.menuToAttractSeconds = c.attract ? 5 : 86400
    settings.kiosk.idleToMenuSeconds = 86400
    // Stay on the game being measured.
    settings.kiosk.attractSecondsPerGame = c.attract && c.games.count == 1 ? 86400 : 30
    let rig: BenchRig
    do {
        rig = try BenchRig(width: width, height: height, settings: settings, stateDirectory: stateDirectory)
    } catch {
        return ReportRow(section: "scenes", name: name, figures: [], notes: [("error", "\(error)")])
    }
    defer { rig.close() }
    if c.attract {
        let reached = rig.run(until: { if case .attract = rig.kiosk.mode { return true } else { return false } }, limit: 10)
        guard reached else {
            return ReportRow(section: "scenes", name: name, figures: [],
                             notes: [("skipped", "no game scene in the catalogue yet")])
        }
    }
    rig.run(c.busySeconds, step: 0.25)

    // Damaged (real) redraws first, then the same number of full ones; the scene keeps
    // moving through both.
    var damagedSum = 0
    var copySeconds = 0.0
    var copyBytes = 0
    var damages: [DamageRegion] = []
    var damagedDraw: [Double] = []
    // Each phase stops after `frames` frames or, outside the deterministic mode, once
    // `budget` seconds of measured frames have passed (at least `minimumFrames`): a
    // slow scene at 1920x1080 would otherwise take minutes.
    func enough(_ i: Int, _ spent: Double) -> Bool {
        i >= options.warmup + options.frames
            || (options.budget > 0 && i >= options.warmup + options.minimumFrames && spent > options.budget)
    }
    var spent = 0.0
    var i = 0
    while !enough(i, spent) {
        defer { i += 1 }
        let f = rig.frame()
        guard i >= options.warmup else { continue }
        spent += f.draw + f.copy
        damagedDraw.append(f.draw)
        damagedSum += f.damage.area
        copySeconds += f.copy
        copyBytes += f.damage.area * 4
        if damages.count < 64 && !f.damage.isEmpty { damages.append(f.damage) }
    }
    var fullDraw: [Double] = [], fullCopy: [Double] = []
    spent = 0
    i = 0
    while !enough(i, spent) {
        defer { i += 1 }
        let f = rig.frame(full: true)
        guard i >= options.warmup else { continue }
        spent += f.draw + f.copy
        fullDraw.append(f.draw)
        fullCopy.append(f.copy)
    }
    let damaged = Timing(samples: damagedDraw), full = Timing(samples: fullDraw)
    // Where this machine's cache makes the screen draw a full frame in bands: full frames
    // drawn whole and in bands, taking turns, for what the bands save (below 1: faster).
    var bandedOverWhole: Double?
    let bandBytes = rig.screen.bandBytes
    if rig.screen.bands(rig.screen.shadow.bounds).count > 1 {
        var whole: [Double] = [], banded: [Double] = []
        for _ in 0..<max(4, min(20, fullDraw.count)) {
            rig.screen.bandBytes = 0
            whole.append(rig.frame(full: true).draw)
            rig.screen.bandBytes = bandBytes
            banded.append(rig.frame(full: true).draw)
        }
        bandedOverWhole = Timing(samples: banded).median / Timing(samples: whole).median
    }

    // A plain memcpy of the same damaged rectangles, for the copy-out ratio.
    let shadow = rig.screen.shadow
    let target = UnsafeMutableRawPointer.allocate(byteCount: shadow.byteCount, alignment: 64)
    target.initializeMemory(as: UInt8.self, repeating: 0, count: shadow.byteCount)
    defer { target.deallocate() }
    // The same damage again, as plain memcpy; scaled to all measured frames.
    var memcpySeconds = 0.0
    if !damages.isEmpty {
        let t0 = monotonicSeconds()
        for d in damages { copyRows(d, shadow, target) }
        let sampled = damages.reduce(0) { $0 + $1.area }
        memcpySeconds = (monotonicSeconds() - t0) * Double(copyBytes / 4) / Double(max(1, sampled))
    }

    // One pixman SRC composite of the whole frame: the floor any full redraw pays.
    let blitTarget = Surface(width: width, height: height, format: .xrgb8888)
    let blit = Timing.measure(count: max(3, min(30, options.frames / 4)), warmup: 1) { _ in
        pixman_image_composite32(PIXMAN_OP_SRC, shadow.pixmanImage, nil, blitTarget.pixmanImage,
                                 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
    }
    let fullMemcpy = Timing.measure(count: max(3, min(30, options.frames / 4)), warmup: 1) { _ in
        memcpy(target, shadow.pixels, shadow.byteCount)
    }
    let fullCopyMedian = Timing(samples: fullCopy).median
    let frames = Double(max(1, damagedDraw.count))
    var figures: [(String, Double)] = [
        ("full_median_ms", full.median * 1000), ("full_p99_ms", full.p99 * 1000),
        ("damaged_median_ms", damaged.median * 1000), ("damaged_p99_ms", damaged.p99 * 1000),
        ("frames_measured", Double(damagedDraw.count + fullDraw.count)),
        ("damaged_fraction", Double(damagedSum) / frames / Double(rig.pixels)),
        ("full_over_pixman_blit", blit.median > 0 ? full.median / blit.median : 0),
        ("copyout_full_ms", fullCopyMedian * 1000),
        ("copyout_full_over_memcpy", fullMemcpy.median > 0 ? fullCopyMedian / fullMemcpy.median : 0),
        ("copyout_damaged_over_memcpy", memcpySeconds > 0 ? copySeconds / memcpySeconds : 0),
        ("rss_mb", Double(residentBytes()) / 1_048_576),
    ]
    if copyBytes == 0 { figures.removeAll { $0.0 == "copyout_damaged_over_memcpy" } }
    if let bandedOverWhole { figures.append(("full_banded_over_whole", bandedOverWhole)) }
    return ReportRow(section: "scenes", name: name, figures: figures,
                     notes: [("mode", "\(rig.kiosk.mode)")])
}

private func copyRows(_ region: DamageRegion, _ shadow: Surface, _ target: UnsafeMutableRawPointer) {
    for r in region.rects {
        for y in r.y..<r.maxY {
            let offset = y * shadow.stride + r.x * 4
            memcpy(target + offset, shadow.pixels + offset, r.width * 4)
        }
    }
}

/// Start-up: from the process's exec to the kiosk's first frame on the (headless) panel,
/// and from building the kiosk to that frame. Run first, with cold font caches.
func startupBench(stateDirectory: String, processStart: Double?) -> [ReportRow] {
    let t0 = monotonicSeconds()
    var settings = Settings()
    if let benchDataDirectory { settings.kiosk.dataDir = benchDataDirectory }
    settings.kiosk.menuToAttractSeconds = 86400
    guard let rig = try? BenchRig(width: 1280, height: 800, settings: settings, stateDirectory: stateDirectory) else {
        return [ReportRow(section: "startup", name: "first-frame-1280x800", figures: [], notes: [("error", "no rig")])]
    }
    let t1 = monotonicSeconds()
    var figures = [("kiosk_to_first_frame_ms", (t1 - t0) * 1000)]
    if let processStart { figures.append(("exec_to_first_frame_ms", (t1 - processStart) * 1000)) }
    figures.append(("rss_mb", Double(residentBytes()) / 1_048_576))
    rig.close()
    return [ReportRow(section: "startup", name: "first-frame-1280x800", figures: figures)]
}

/// When this process started, on the monotonic clock (10 ms resolution: clock ticks).
func processStartMonotonic() -> Double? {
    guard let stat = try? Files.readText("/proc/self/stat"),
          let close = stat.lastIndex(of: ")") else { return nil }
    // Fields after the command name; starttime is field 22 overall, 20th after ")".
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
    let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
    var ts = timespec()
    // CLOCK_BOOTTIME counts from the same origin as starttime, suspend included.
    clock_gettime(CLOCK_BOOTTIME, &ts)
    let boot = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    let age = boot - ticks / hz
    return monotonicSeconds() - age
}
