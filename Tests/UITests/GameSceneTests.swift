import Audio
import Graphics
import TestSupport
import XCTest
@testable import UI

/// A game with nothing but a clock, to see what the base does for every game.
private final class ClockGame: GameScene {
    var pauses = 0, resumes = 0, saves = 0
    var lost = false
    override var wantsMusic: Bool { super.wantsMusic && !lost }
    init(_ context: GameContext) { super.init(context, music: .memoryMatch) }
    override func gameDidPause() { pauses += 1 }
    override func gameDidResume() { resumes += 1 }
    override func saveProgress() { saves += 1 }
}

final class GameSceneTests: XCTestCase {
    func testPauseAndResumeMeanTheSameForEveryGame() {
        let h = SceneHarness(language: .chinese) { ClockGame($0) }
        XCTAssertEqual(h.sound.requests, [.music(.memoryMatch)], "the tune starts when the scene appears")
        XCTAssertEqual(h.scene.text("Play", "开始"), "开始")

        h.scene.pause()
        h.scene.pause()
        XCTAssertTrue(h.scene.isPaused)
        XCTAssertEqual(h.scene.pauses, 1, "a second pause is none")
        XCTAssertEqual(h.scene.saves, 1, "a pause saves")
        XCTAssertEqual(h.sound.requests.filter { $0 == .pauseMusic }.count, 1)

        h.scene.resume()
        h.scene.resume()
        XCTAssertEqual(h.scene.resumes, 1)
        XCTAssertEqual(h.sound.requests.last, .resumeMusic)

        // A game whose tune has stopped (game over) does not start it again on resume.
        h.scene.lost = true
        h.scene.pause()
        h.scene.resume()
        XCTAssertEqual(h.sound.requests.last, .pauseMusic)
    }

    func testAttractModeIsSilentAndTheHomeButtonNeedsAHold() {
        var home = 0
        let h = SceneHarness { context -> ClockGame in
            let game = ClockGame(context)
            game.isAutoplaying = true
            return game
        }
        XCTAssertEqual(h.sound.requests, [], "no tune in attract mode")
        h.scene.onHome = { home += 1 }
        h.scene.addSubview(h.scene.homeButton)
        h.scene.homeButton.frame = Rect(10, 10, 56, 56)
        h.tap(h.scene.homeButton)
        XCTAssertEqual(home, 0, "a short tap is not enough")
        h.tap(h.scene.homeButton, hold: 1.0)
        XCTAssertEqual(home, 1)
    }
}
