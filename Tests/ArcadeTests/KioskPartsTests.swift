@testable import Arcade
import Foundation
import Input
import Platform
import TestSupport
import UI
import XCTest

/// The kiosk's parts on their own, and the shape that keeps `Kiosk` a router over them.
final class KioskPartsTests: XCTestCase {
    func testKioskHoldsFewerThanFifteenThings() throws {
        let (runner, _) = try makeRunner(self)
        let stored = Mirror(reflecting: runner.kiosk).children.compactMap(\.label)
        XCTAssertLessThan(stored.count, 15, "Kiosk routes; its parts own the state: \(stored)")
    }

    func testNoArcadeFileOverFourHundredLines() throws {
        let arcade = sourceRoot + "/Sources/Arcade"
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: arcade)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 40)
        for file in files {
            let lines = try String(contentsOfFile: arcade + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertLessThanOrEqual(lines.count - 1, 400, file)
        }
    }

    func testCabinetTellsTheMixerOnlyChangesUnlessForced() {
        let cabinet = Cabinet()
        var told: [Int] = []
        cabinet.onVolumeChange = { told.append($0) }
        cabinet.setVolume(60)
        cabinet.setVolume(60)
        cabinet.setVolume(15)
        cabinet.setVolume(15, force: true)
        XCTAssertEqual(told, [60, 15, 15])
        var second: [Int] = []
        cabinet.onVolumeChange = { second.append($0) }
        cabinet.setVolume(15)
        XCTAssertEqual(second, [15], "a new mixer hears the volume")
    }

    func testCreditDeskOnItsOwn() throws {
        let dir = try makeTemporaryDirectory(self)
        let store = StateStore(directory: dir, now: 1)
        var settings = Settings().kiosk
        settings.playMode = .credits
        settings.creditsPerPlay = 2
        settings.coinsPerCredit = 1
        let desk = CreditDesk(store: store, settings: settings)
        XCTAssertTrue(desk.isCreditsMode)
        XCTAssertEqual(desk.creditLine(.english, store: store), "Insert coin · credits 0")
        XCTAssertEqual(desk.attractLine(.chinese, store: store), "请投币")
        XCTAssertFalse(desk.isWaitingAfterPaidGame(.menu))
        XCTAssertTrue(desk.isWaitingAfterPaidGame(.game("2048")), "an unpaid game in credits mode takes no input")
        settings.playMode = .free
        desk.apply(settings, store: store)
        XCTAssertNil(desk.creditLine(.english, store: store), "free play shows no credit line")
        XCTAssertFalse(desk.isWaitingAfterPaidGame(.game("2048")))
    }

    func testReportingActivityPerMode() {
        let idle = KioskReporting.idleMenuSeconds
        XCTAssertEqual(KioskReporting.activity(.attract("2048"), isClosed: false, idleFor: 0), "idle")
        XCTAssertEqual(KioskReporting.activity(.menu, isClosed: false, idleFor: idle - 1), "play")
        XCTAssertEqual(KioskReporting.activity(.menu, isClosed: false, idleFor: idle), "idle")
        XCTAssertEqual(KioskReporting.activity(.menu, isClosed: true, idleFor: 0), "closed")
        XCTAssertEqual(KioskReporting.activity(.pin, isClosed: true, idleFor: 0), "service")
        XCTAssertEqual(KioskReporting.activity(.game("2048"), isClosed: false, idleFor: 0), "play")
    }

    func testUnattendedFollowsTheSettings() {
        var settings = Settings().kiosk
        settings.idleToMenuSeconds = 30
        settings.menuToAttractSeconds = 20
        let idle = Unattended(settings: settings, now: 0)
        XCTAssertEqual(idle.timer.idleToMenu, 30)
        settings.menuToAttractSeconds = 0
        idle.apply(settings)
        XCTAssertEqual(idle.timer.menuToAttract, 0, "0: the attract mode never starts")
        XCTAssertNil(idle.timer.update(now: 1000), "nothing starts with the attract mode off")
    }

    func testScreenRecognisesSwipesOnly() {
        let screen = Screen(width: 800, height: 480)
        final class Swiped: Scene {
            var swipes: [SwipeDirection] = []
            override func handleSwipe(_ direction: SwipeDirection) -> Bool { swipes.append(direction); return true }
        }
        let scene = Swiped()
        screen.show(scene, now: 0)
        func stroke(_ id: Int, from x: Double, to x2: Double, at t: Double) {
            screen.handle(.touch(TouchEvent(phase: .down, id: id, x: x, y: 200, time: t)))
            screen.handle(.touch(TouchEvent(phase: .move, id: id, x: (x + x2) / 2, y: 200, time: t + 0.05)))
            screen.handle(.touch(TouchEvent(phase: .up, id: id, x: x2, y: 200, time: t + 0.1)))
        }
        stroke(1, from: 600, to: 300, at: 1)
        stroke(2, from: 400, to: 402, at: 2)
        XCTAssertEqual(scene.swipes, [.left], "a swipe reaches the scene; a tap is the scene's own touch")
        screen.handle(.touch(TouchEvent(phase: .down, id: 3, x: 100, y: 200, time: 3)))
        screen.show(Swiped(), now: 3.05)
        screen.handle(.touch(TouchEvent(phase: .up, id: 3, x: 500, y: 200, time: 3.1)))
        XCTAssertEqual(scene.swipes, [.left], "a scene change forgets the fingers")
    }
}

/// Input to photon: from an input's time to the vblank of the frame that shows its result.
final class InputToPhotonTests: XCTestCase {
    func testAnInputIsTimedToTheFrameThatShowsIt() {
        let figures = RunFigures()
        figures.inputChangedScreen(at: 10.000)
        figures.inputChangedScreen(at: 10.004)
        figures.frameDrawn(presented: true)
        figures.frameShown(at: 10.020)
        XCTAssertEqual(figures.inputToPhoton.count, 1, "one frame answers both inputs: the earlier one is timed")
        XCTAssertEqual(figures.inputToPhoton.max, 0.020, accuracy: 1e-9)
        figures.inputChangedScreen(at: 11)
        figures.frameDrawn(presented: false)
        figures.frameShown(at: 11.5)
        XCTAssertEqual(figures.inputToPhoton.count, 1, "a frame with nothing new answers nothing")
        figures.inputChangedScreen(at: 50)
        figures.frameDrawn(presented: true)
        figures.frameShown(at: 20)
        XCTAssertEqual(figures.inputToPhoton.count, 1, "another clock's time is not a latency")
    }

    func testHistogramQuantilesAreBucketBounds() {
        var h = Histogram(bounds: RunFigures.photonBuckets)
        XCTAssertNil(h.quantileBound(0.5))
        for _ in 0..<98 { h.record(0.010) }
        h.record(0.030)
        h.record(2.5)
        XCTAssertEqual(h.quantileBound(0.5), 0.0125)
        XCTAssertEqual(h.quantileBound(0.99), 0.033)
        XCTAssertEqual(h.quantileBound(1), 2.5, "past the last bound: the largest sample")
        XCTAssertEqual(h.cumulative.last?.count, 100)
    }

    func testATappedTileIsTimedInTheHeadlessKioskAndInItsMetrics() throws {
        let (runner, _) = try makeRunner(self)
        runner.advance(1)
        XCTAssertEqual(runner.kiosk.reporting.figures.inputToPhoton.count, 0, "no input, no figure")
        runner.tap([(110, 240)])
        let h = runner.kiosk.reporting.figures.inputToPhoton
        XCTAssertGreaterThanOrEqual(h.count, 1, "the press and the game it opened were shown")
        XCTAssertLessThanOrEqual(h.max, runner.frameInterval + 1e-9,
                                 "headless frames come a frame interval apart: the next one shows the input")
        let text = runner.kiosk.reporting.snapshot(of: runner.kiosk, cpuSeconds: 0).text
        XCTAssertTrue(text.contains("boardwalk_input_to_photon_seconds_count \(h.count)"), text)
        XCTAssertTrue(text.contains("# TYPE boardwalk_input_to_photon_seconds histogram"))
    }
}
