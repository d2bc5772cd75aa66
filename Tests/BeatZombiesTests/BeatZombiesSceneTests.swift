import Audio
import Foundation
import Graphics
import Input
import UI
import XCTest
@testable import BeatZombies

private let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
private let referenceDirectory = testsDirectory.appendingPathComponent("References").path
private let outDirectory = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("out").path

/// Drives a scene through a Screen the way the kiosk does: frames at a fixed rate, taps as
/// touch events in pixels.
final class SceneDriver {
    let screen: Screen
    let scene: BeatZombiesScene
    let sound = RecordingSoundBoard()
    let storage = MemoryStorage()
    var now = 100.0
    private var touchID = 1

    init(width: Int, height: Int, language: Language = .english, seed: UInt64 = 1) {
        screen = Screen(width: width, height: height)
        scene = BeatZombiesScene(sound: sound, storage: storage, language: language, seed: seed)
        screen.show(scene, now: now)
        screen.renderFrame(now: now)
    }

    func run(seconds: Double, fps: Double = 20) {
        let frames = Int((seconds * fps).rounded())
        for _ in 0..<frames {
            now += 1 / fps
            screen.renderFrame(now: now)
        }
    }

    /// Touch-down and lift at a point in scene points.
    func tap(_ point: Point) {
        let x = point.x * screen.scale, y = point.y * screen.scale
        touchID += 1
        screen.handle(.touch(TouchEvent(phase: .down, id: touchID, x: x, y: y, time: now)))
        screen.handle(.touch(TouchEvent(phase: .up, id: touchID, x: x, y: y, time: now + 0.03)))
    }

    /// Where a zombie is drawn, in scene points (nil when none is fully on the lawn).
    func visibleZombieCenter() -> Point? {
        let game = scene.game
        let lawn = scene.lawnView.frame
        guard let zombie = game.zombies.first(where: {
            let r = game.drawFrame(of: $0)
            return !$0.isBeaten && r.minX >= 0 && r.maxX <= game.lawnWidth
        }) else { return nil }
        let r = game.drawFrame(of: zombie)
        return Point(lawn.minX + r.midX, lawn.minY + r.midY)
    }

    /// Waits for a zombie on the lawn and taps it.
    func tapAZombie(file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<2000 {
            if let point = visibleZombieCenter() {
                tap(point)
                return
            }
            run(seconds: 1.0 / 20)
        }
        XCTFail("no zombie came", file: file, line: line)
    }

    func effects(_ sound: Sound) -> Int {
        self.sound.requests.filter { $0 == .effect(sound) }.count
    }

    /// Writes the frame to out/shots for people to look at and compares it with the reference.
    func check(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        try? FileManager.default.createDirectory(atPath: outDirectory + "/shots", withIntermediateDirectories: true)
        try? screen.shadow.writePNG(outDirectory + "/shots/\(name).png")
        if let mismatch = ReferenceImages.check(screen.shadow, reference: "\(referenceDirectory)/\(name).png",
                                                failureDirectory: outDirectory + "/test-failures") {
            XCTFail(mismatch.description, file: file, line: line)
        }
    }
}

final class BeatZombiesSceneTests: XCTestCase {
    /// The headless script of the issue: taps, a speed-up, game over, restart; each step a
    /// reference image.
    func testAScriptedGame() {
        let driver = SceneDriver(width: 800, height: 480)
        XCTAssertEqual(driver.sound.requests.first, .music(.beatZombies), "music starts with the game")
        driver.run(seconds: 9)
        driver.check("zombies-playing-800x480")

        driver.tapAZombie()
        XCTAssertEqual(driver.scene.game.score, 1)
        XCTAssertEqual(driver.effects(.zombieHit), 1, "the hit sound")
        XCTAssertEqual(driver.scene.scoreLabel.text, "Score 1")
        driver.run(seconds: 0.25)
        driver.check("zombies-hit-800x480")

        while driver.scene.game.score < 20 {
            driver.tapAZombie()
            driver.run(seconds: 0.1)
        }
        XCTAssertEqual(driver.scene.game.speedUps, 1)
        driver.run(seconds: 0.2)
        driver.check("zombies-speedup-800x480")

        // Let the zombies in: frames of a quarter second to get there quickly.
        var guardFrames = 0
        while driver.scene.game.phase == .playing && guardFrames < 10_000 {
            driver.run(seconds: 0.25, fps: 4)
            guardFrames += 1
        }
        XCTAssertEqual(driver.scene.game.phase, .lost)
        XCTAssertEqual(driver.scene.game.inHouse, 60)
        XCTAssertEqual(driver.effects(.zombiesWon), 1, "the lose sound")
        XCTAssertEqual(driver.storage.integer("zombies.best"), 20)
        driver.run(seconds: 1.5)
        driver.check("zombies-lost-800x480")

        // Taps on the lawn do nothing now; the restart button starts over.
        let score = driver.scene.game.score
        driver.tap(Point(600, 300))
        XCTAssertEqual(driver.scene.game.score, score)
        let button = driver.scene.subviews.compactMap { $0 as? LostOverlay }.first!.restartButton
        driver.tap(button.rectInRoot.center)
        XCTAssertEqual(driver.scene.game.phase, .playing)
        XCTAssertEqual(driver.scene.game.score, 0)
        XCTAssertEqual(driver.scene.game.inHouse, 0)
        XCTAssertEqual(driver.scene.bestLabel.text, "Best 20")
        driver.run(seconds: 6)
        driver.check("zombies-restart-800x480")
    }

    func testChineseAndABigScreen() {
        let driver = SceneDriver(width: 1280, height: 800, language: .chinese, seed: 3)
        driver.run(seconds: 12)
        driver.tapAZombie()
        driver.run(seconds: 0.2)
        XCTAssertEqual(driver.scene.scoreLabel.text, "得分 1")
        driver.check("zombies-playing-1280x800-zh")
    }

    func testPortrait() {
        let driver = SceneDriver(width: 480, height: 800, seed: 4)
        driver.run(seconds: 10)
        driver.check("zombies-playing-480x800")
    }

    func testPauseStopsTheClockAndTheMusic() {
        let driver = SceneDriver(width: 800, height: 480)
        driver.run(seconds: 2)
        driver.scene.pause()
        let zombies = driver.scene.game.zombies
        driver.run(seconds: 3)
        XCTAssertEqual(driver.scene.game.zombies, zombies)
        XCTAssertFalse(driver.scene.isLive, "a paused game asks for no frames")
        XCTAssertEqual(driver.sound.requests.last, .pauseMusic)
        driver.scene.resume()
        XCTAssertEqual(driver.sound.requests.last, .resumeMusic)
        driver.run(seconds: 0.5)
        XCTAssertNotEqual(driver.scene.game.zombies, zombies)
    }

    func testAttractModePlaysItselfAndKeepsNoBestScore() {
        let driver = SceneDriver(width: 800, height: 480)
        driver.scene.isAutoplaying = true
        driver.tap(Point(400, 300))
        driver.run(seconds: 40, fps: 30)
        XCTAssertGreaterThan(driver.scene.game.score, 20)
        driver.scene.pause()
        XCTAssertNil(driver.storage.integer("zombies.best"))
    }

    func testIdleFramesDrawOnlyTheLawn() {
        let driver = SceneDriver(width: 800, height: 480)
        driver.run(seconds: 1)
        let damage = driver.screen.renderFrame(now: driver.now + 1.0 / 60)
        // The top bar (score, house meter) is not redrawn while nothing there changes.
        XCTAssertGreaterThanOrEqual(damage.bounds.y, Int(60 * driver.screen.scale) - 2)
    }
}
