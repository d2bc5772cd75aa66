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
    init(_ context: GameContext, lowerIsBetter: Bool = false) {
        super.init(context, game: Self.descriptor(lowerIsBetter: lowerIsBetter))
    }

    static let bestKey = "clock.best"

    static func descriptor(lowerIsBetter: Bool) -> GameDescriptor {
        GameDescriptor(id: "clock", names: [.english: "Clock"], emoji: "⏰", color: Theme.accent, music: .memoryMatch,
                       best: BestScore(lowerIsBetter: lowerIsBetter, variants: [ScoreVariant(key: bestKey)],
                                       currentKey: { _, _, _ in bestKey }, label: { best, _, _ in "Best \(best)" }),
                       makeScene: { ClockGame($0, lowerIsBetter: lowerIsBetter) })
    }
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

    func testRecordBestKeepsTheBetterResultInTheGamesOrder() {
        for (lowerIsBetter, results, kept) in [(false, [5, 3, 9, 9], [5, 5, 9, 9]), (true, [14, 20, 12, 12], [14, 14, 12, 12])] {
            let h = SceneHarness { ClockGame($0, lowerIsBetter: lowerIsBetter) }
            var reported: [GameResult] = []
            h.scene.onResult = { reported.append($0) }
            if !lowerIsBetter { XCTAssertNil(h.scene.recordBest(0, variantKey: ClockGame.bestKey), "no points are no best") }
            for (result, best) in zip(results, kept) {
                XCTAssertEqual(h.scene.recordBest(result, variantKey: ClockGame.bestKey), best)
                XCTAssertEqual(h.storage.integer(ClockGame.bestKey), best)
            }
            XCTAssertEqual(reported, [], "a best alone is not a finished game")
            // A finished game is reported and kept as the best when it is one.
            let better = lowerIsBetter ? 2 : 20
            h.scene.reportResult(better, variantKey: ClockGame.bestKey)
            XCTAssertEqual(reported, [GameResult(score: better, variantKey: ClockGame.bestKey)])
            XCTAssertEqual(h.storage.integer(ClockGame.bestKey), better)
            // The high-score tables rank with the same comparison.
            XCTAssertTrue(BestScore.isBetter(better, than: kept.last, lowerIsBetter: lowerIsBetter))
            XCTAssertTrue(BestScore.isBetter(better, than: nil, lowerIsBetter: lowerIsBetter), "anything beats nothing")
        }
        let attract = SceneHarness { context -> ClockGame in
            let game = ClockGame(context)
            game.isAutoplaying = true
            return game
        }
        XCTAssertNil(attract.scene.recordBest(99, variantKey: ClockGame.bestKey))
        attract.scene.reportResult(99, variantKey: ClockGame.bestKey)
        XCTAssertNil(attract.storage.integer(ClockGame.bestKey), "attract games keep no best")
    }

    /// The end-of-game panel: its buttons wait for it to grow in, a press takes it away and
    /// acts, and while it shows touches, focus and the back key stay with it.
    func testEndOfGamePanelWaitsThenTakesItsChoice() throws {
        var home = 0, again = 0, back = 0
        let h = SceneHarness { ClockGame($0) }
        h.scene.onHome = { home += 1 }
        let panel = EndOfGamePanel(emoji: "⏰", title: "Time's up", headline: "Score 3", lines: ["Best 5"],
                                   choices: [.init("Again", icon: "🔄") { again += 1 }, .init("Menu") {}])
        h.scene.present(panel)
        XCTAssertTrue(h.scene.focusedView === panel.buttons[0], "the next game's button has the focus")
        let againButton = panel.buttons[0]
        h.run(seconds: EndOfGamePanel.growDuration)
        h.tap(againButton.rectInRoot.center)
        XCTAssertEqual(again, 0, "the tap that ended the game cannot start the next one")
        XCTAssertTrue(h.scene.endPanel === panel)

        h.run(seconds: EndOfGamePanel.buttonDelay + Theme.normal)
        h.key(.back)
        XCTAssertEqual(home, 1, "without onBack the back key goes home")
        panel.onBack = { back += 1 }
        h.key(.back)
        XCTAssertEqual(back, 1)
        h.key(.right)
        XCTAssertTrue(h.scene.focusedView === panel.buttons[1], "focus moves between the panel's buttons")
        h.key(.left)
        h.tap(againButton.rectInRoot.center)
        XCTAssertEqual(again, 1)
        XCTAssertNil(h.scene.endPanel, "a press takes the panel away")
        XCTAssertNil(panel.superview)
    }
}
