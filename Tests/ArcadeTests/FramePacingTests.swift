@testable import Arcade
import Display
import Graphics
import Input
import Platform
import ScreenGeometry
import TestSupport
import UI
import XCTest

/// A panel on a 60 Hz vblank grid, on the test's own clock: a present takes `drawCost` of
/// that clock and flips at the first vblank after it, as a page flip does.
private final class GridPresenter: Presenter {
    let width: Int, height: Int
    var rotation: Rotation { .deg0 }
    let interval = 1.0 / 60
    let drawCost: Double
    var clock = 0.0
    private(set) var pendingVblank: Double?
    private(set) var lastShownAt: Double?
    private(set) var needsFullRedraw = true

    init(width: Int, height: Int, drawCost: Double) {
        self.width = width
        self.height = height
        self.drawCost = drawCost
    }

    var refreshInterval: Double? { interval }
    var pollDescriptor: FileDescriptor? { nil }
    var isReadyForFrame: Bool { pendingVblank == nil }

    func present(_ shadow: Surface, damage: DamageRegion) throws(DisplayError) {
        clock += drawCost
        pendingVblank = ((clock / interval).rounded(.down) + 1) * interval
        needsFullRedraw = false
    }

    /// The flip's event, once the clock has reached its vblank.
    func handleReadable() throws(DisplayError) {
        guard let vblank = pendingVblank, clock >= vblank - 1e-9 else { return }
        lastShownAt = vblank
        pendingVblank = nil
    }

    func handleVTSignal(_ signal: Int32) {}
    func shutdown() {}
}

/// When the loop draws a frame (`FrameDriver.drawTime`): at once for an input, as late
/// before the vblank as the frame's cost allows for a picture that only moves on.
final class FramePacingTests: XCTestCase {
    /// A headless runner's kiosk, drawn on a grid panel by a driver on the panel's clock.
    private func kioskOnAGridPanel(drawCost: Double) throws -> (Kiosk, GridPresenter, FrameDriver) {
        let (runner, _) = try makeRunner(self)
        let panel = GridPresenter(width: 800, height: 480, drawCost: drawCost)
        panel.clock = runner.now
        let frames = FrameDriver(kiosk: runner.kiosk, presenter: panel, now: panel.clock, clock: { panel.clock })
        return (runner.kiosk, panel, frames)
    }

    /// A tap on the menu's first tile.
    private func openBeatZombies(_ kiosk: Kiosk, at time: Double) {
        kiosk.handle(.touch(TouchEvent(phase: .down, id: 1, x: 110, y: 240, time: time)), now: time)
        kiosk.handle(.touch(TouchEvent(phase: .up, id: 1, x: 110, y: 240, time: time)), now: time)
    }
    /// Beat Zombies in play (its lawn moves every frame) with taps on the lawn at moments
    /// unrelated to the vblanks, on a loop that runs the kiosk as `LiveRunner` does: each
    /// tap's time to the vblank that shows it.
    private func lawnLatencies(paced: Bool, drawCost: Double = 0.002) throws -> [Double] {
        let (kiosk, panel, frames) = try kioskOnAGridPanel(drawCost: drawCost)
        var taps: [(at: Double, down: Bool)] = []
        var seed: UInt64 = 41
        var t = panel.clock + 0.5
        for _ in 0..<40 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            t += 0.2 + Double((seed >> 33) % 1000) / 1000 * 0.3
            taps.append((t, true))
            taps.append((t + 0.05, false))
        }
        openBeatZombies(kiosk, at: panel.clock)
        XCTAssertEqual(kiosk.mode, .game("beat_zombies"), "the first tile opens Beat Zombies")
        kiosk.keepInputToPhotonSamples()
        var next = 0
        var frameDue: Double?
        let end = t + 1
        while panel.clock < end {
            let now = panel.clock
            if next < taps.count, now >= taps[next].at {
                let phase: TouchPhase = taps[next].down ? .down : .up
                kiosk.handle(.touch(TouchEvent(phase: phase, id: 2 + next, x: 500, y: 300, time: now)), now: now)
                next += 1
            }
            kiosk.tick(now: now)
            frameDue = nil
            if panel.isReadyForFrame, kiosk.wantsFrame {
                let due = paced ? frames.drawTime(now: now) : now
                if due > now { frameDue = due } else { try frames.drawFrame(now: now) }
            }
            // The loop's wait: the flip, the next tap, a paced frame or the kiosk's timers.
            let wake = [panel.pendingVblank, next < taps.count ? taps[next].at : nil, frameDue, kiosk.nextDeadline]
                .compactMap { $0 }.filter { $0 > panel.clock }.min() ?? panel.clock + 0.1
            panel.clock = wake
            try panel.handleReadable()
            frames.noteShown()
        }
        XCTAssertEqual(kiosk.mode, .game("beat_zombies"), "the taps stayed on the lawn")
        return kiosk.inputToPhotonSamples
    }

    func testATapOnAMovingPictureIsShownByTheNextFrameThatCouldShowIt() throws {
        let latencies = try lawnLatencies(paced: true)
        XCTAssertGreaterThanOrEqual(latencies.count, 70, "most presses and lifts changed the lawn")
        let interval = 1.0 / 60
        // The frame's lead: its cost, the loop's wake-up margin; the goal: a period + 4 ms.
        let lead = 0.002 + FrameDriver.wakeMargin
        let sorted = latencies.sorted()
        let figures = "p50 \(sorted[sorted.count / 2] * 1000) ms, max \(sorted.last! * 1000) ms"
        XCTAssertLessThanOrEqual(sorted.last!, interval + lead + 1e-6, figures)
        XCTAssertLessThanOrEqual(sorted.last!, interval + 0.004, figures)
    }

    func testDrawnStraightAfterEachFlipATapWaitsUpToTwoPeriods() throws {
        // The same taps with every frame drawn as soon as the screen is free: a tap behind
        // a queued frame waits for it and a whole period more (why frames are paced).
        let sorted = try lawnLatencies(paced: false).sorted()
        let figures = "p50 \(sorted[sorted.count / 2] * 1000) ms, max \(sorted.last! * 1000) ms"
        XCTAssertGreaterThan(sorted.last!, 1.0 / 60 + 0.004, figures)
        XCTAssertGreaterThan(sorted[sorted.count / 2], 1.0 / 60, figures)
    }

    func testWhatIsDrawnAtOnce() throws {
        let (kiosk, panel, frames) = try kioskOnAGridPanel(drawCost: 0.002)
        XCTAssertEqual(frames.drawTime(now: panel.clock), panel.clock, "the first frame repaints everything")
        openBeatZombies(kiosk, at: panel.clock)
        XCTAssertEqual(frames.drawTime(now: panel.clock), panel.clock, "a frame that answers a tap")
        try frames.drawFrame(now: panel.clock)
        panel.clock = panel.pendingVblank!
        try panel.handleReadable()
        let vblank = panel.clock
        // The lawn moves on: its next frame waits until just before the next vblank.
        let due = frames.drawTime(now: vblank + 0.001)
        XCTAssertEqual(due, vblank + panel.interval - FrameDriver.firstLead - FrameDriver.wakeMargin, accuracy: 1e-9)
        XCTAssertEqual(frames.drawTime(now: vblank + panel.interval - 0.001), vblank + panel.interval - 0.001,
                       "too late to wait: at once")
        let headless = try HeadlessPresenter(width: 800, height: 480)
        let unpaced = FrameDriver(kiosk: kiosk, presenter: headless, now: vblank)
        XCTAssertEqual(unpaced.drawTime(now: vblank + 0.001), vblank + 0.001, "no vblanks, no waiting")
    }

    func testAFrameThatCostsMostOfAPeriodIsNotHeldBack() throws {
        let (kiosk, panel, frames) = try kioskOnAGridPanel(drawCost: 0.014)
        openBeatZombies(kiosk, at: panel.clock)
        for _ in 0..<3 {
            try frames.drawFrame(now: panel.clock)
            panel.clock = panel.pendingVblank!
            try panel.handleReadable()
        }
        XCTAssertEqual(frames.drawTime(now: panel.clock + 0.001), panel.clock + 0.001,
                       "14 ms frames at 60 Hz: drawn as soon as the screen is free")
    }
}
