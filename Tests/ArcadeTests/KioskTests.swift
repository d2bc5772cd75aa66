import TestSupport
import XCTest
import Graphics
import Input
import UI
@testable import Arcade

/// A headless kiosk at 800x480 (points = pixels) with its own state directory.
/// `directory`: a state directory to reuse (a "restart" of the kiosk); default a new one.
/// `prepare` fills the state store before the kiosk starts (tables, counters it reads at start).
func makeRunner(_ test: XCTestCase, directory: String? = nil, width: Int = 800, height: Int = 480,
                configure: (inout Settings) -> Void = { _ in },
                prepare: (StateStore) -> Void = { _ in }) throws -> (HeadlessRunner, StateStore) {
    let dir = try directory ?? makeTemporaryDirectory(test)
    var settings = Settings()
    settings.kiosk.stateDir = dir
    settings.kiosk.dataDir = sourceRoot + "/data"
    settings.kiosk.operatorPIN = HeadlessRunner.tourPIN   // 1234, as the tour types it
    configure(&settings)
    let store = StateStore(directory: dir, now: 1)
    prepare(store)
    let runner = try HeadlessRunner(settings: settings, width: width, height: height, store: store,
                                    catalog: .standard)
    // 20 frames a second keeps debug-build tests quick; rules run in fixed steps anyway.
    runner.frameInterval = 1.0 / 20
    return (runner, store)
}

let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

final class KioskTests: XCTestCase {
    func testBootsToTheMenu() throws {
        let (runner, _) = try makeRunner(self)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertTrue(runner.kiosk.screen.scene is MenuScene)
        XCTAssertEqual(runner.sound.requests.last, .music(.menu))
    }

    func testOperatorGestureNeedsTwoCornersHeld() throws {
        let (runner, _) = try makeRunner(self)
        // One finger held in a corner is not the gesture.
        runner.hold(5, 5, seconds: 4)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        // Two fingers in opposite corners, held briefly: still not.
        let k = runner.kiosk
        k.handle(.touch(TouchEvent(phase: .down, id: 90, x: 5, y: 5, time: runner.now)), now: runner.now)
        k.handle(.touch(TouchEvent(phase: .down, id: 91, x: 795, y: 475, time: runner.now)), now: runner.now)
        runner.advance(1)
        k.handle(.touch(TouchEvent(phase: .up, id: 90, x: 5, y: 5, time: runner.now)), now: runner.now)
        k.handle(.touch(TouchEvent(phase: .up, id: 91, x: 795, y: 475, time: runner.now)), now: runner.now)
        runner.advance(0.5)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        // Held for three seconds: the PIN pad.
        k.handle(.touch(TouchEvent(phase: .down, id: 92, x: 5, y: 5, time: runner.now)), now: runner.now)
        k.handle(.touch(TouchEvent(phase: .down, id: 93, x: 795, y: 475, time: runner.now)), now: runner.now)
        runner.advance(3.2)
        XCTAssertEqual(runner.kiosk.mode, .pin)
    }

    func testPINThenVolumeAndLanguagePersist() throws {
        let (runner, store) = try makeRunner(self)
        runner.key("service")
        XCTAssertEqual(runner.kiosk.mode, .pin)
        let pin = try XCTUnwrap(runner.kiosk.screen.scene as? PINScene)
        for d in "9999" { pin.onKey?(String(d)) }
        pin.onKey?("OK")
        XCTAssertEqual(runner.kiosk.mode, .pin, "a wrong PIN keeps the pad")
        for d in "1234" { pin.onKey?(String(d)) }
        XCTAssertEqual(pin.digitsEntered, 4)
        pin.onKey?("OK")
        XCTAssertEqual(runner.kiosk.mode, .operatorMenu)
        let before = runner.kiosk.volume
        runner.kiosk.volume = before - 10
        runner.kiosk.language = .chinese
        XCTAssertEqual(store.setting("audio.volume"), String(before - 10))
        XCTAssertEqual(store.setting("kiosk.language"), "zh")
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertEqual((runner.kiosk.screen.scene as? MenuScene)?.language, .chinese)
    }

    /// The operator menu holds its kiosk unowned: a kiosk dropped with the menu on screen
    /// frees both (it used to keep both alive through the menu's closures).
    func testAKioskDroppedWithItsOperatorMenuOnScreenIsFreed() throws {
        weak var kiosk: Kiosk?
        weak var menu: OperatorScene?
        do {
            let (runner, _) = try makeRunner(self)
            runner.kiosk.showOperatorScene()
            runner.advance(0.5)
            menu = try XCTUnwrap(runner.kiosk.screen.scene as? OperatorScene)
            menu?.refresh()
            kiosk = runner.kiosk
        }
        XCTAssertNil(menu, "the operator menu outlived its kiosk")
        XCTAssertNil(kiosk, "the kiosk outlived its runner")
    }

    func testAKioskDroppedWithAnOperatorPageOnScreenIsFreed() throws {
        for page in [OperatorPageKind.highScores, .coins, .books, .screenCare, .sound, .update(bundle: "/nowhere/b.raucb")] {
            weak var kiosk: Kiosk?
            weak var scene: Scene?
            do {
                let (runner, _) = try makeRunner(self)
                runner.kiosk.showPage(page)
                runner.advance(0.5)
                scene = runner.kiosk.screen.scene
                kiosk = runner.kiosk
            }
            XCTAssertNil(scene, "\(page): the page outlived its kiosk")
            XCTAssertNil(kiosk, "\(page): the kiosk outlived its runner")
        }
    }

    func testDisablingGamesKeepsAtLeastOne() throws {
        let (runner, _) = try makeRunner(self)
        for g in runner.kiosk.games { runner.kiosk.setGame(g.id, enabled: false) }
        XCTAssertEqual(runner.kiosk.games.filter(\.enabled).count, 1)
    }

    func testHeadlessScriptErrorsNameTheLine() {
        XCTAssertThrowsError(try HeadlessScript(text: "wait 1\ntap 10\n", file: "s.txt")) { error in
            XCTAssertEqual("\(error)", "s.txt:2: 'tap' takes 2 or 4 or 6 or 8 or 10 numbers, got 1")
        }
        XCTAssertThrowsError(try HeadlessScript(text: "jump 1 2", file: "s.txt"))
        XCTAssertThrowsError(try HeadlessScript(text: "key sideways", file: "s.txt"))
        let ok = try? HeadlessScript(text: "# tour\nwait 0.5\ntap 1 2 3 4\nswipe 1 2 3 4\nkey left\nshot a\n")
        XCTAssertEqual(ok?.commands.count, 5)
    }
}

/// A frame only draws: timers and state writes (an fsync each) belong to the loop's tick.
final class FramePathTests: XCTestCase {
    func testRenderingNeverWritesStateOnlyTickDoes() throws {
        let (runner, store) = try makeRunner(self)
        store.setScore("zombies.best", 7, now: runner.now)
        XCTAssertTrue(store.hasUnsavedChanges)
        let due = try XCTUnwrap(store.nextFlushDeadline)
        let later = due + 1
        _ = runner.kiosk.renderFrame(now: later)
        XCTAssertTrue(store.hasUnsavedChanges, "a frame past the flush deadline did not write")
        runner.kiosk.tick(now: later)
        XCTAssertFalse(store.hasUnsavedChanges, "the loop's tick wrote it")
        XCTAssertEqual(StateStore(directory: store.directory, now: later).best("zombies.best"), 7)
    }

    func testIdleDeadlineRunsFromTickNotFromFrames() throws {
        let (runner, _) = try makeRunner(self) { $0.kiosk.idleToMenuSeconds = 5 }
        runner.kiosk.open(game: "2048")
        let start = runner.now
        _ = runner.kiosk.renderFrame(now: start + 6)
        XCTAssertEqual(runner.kiosk.mode, .game("2048"), "drawing does not change screens")
        runner.kiosk.tick(now: start + 6)
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }
}
