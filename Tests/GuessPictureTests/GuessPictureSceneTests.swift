import Audio
import Foundation
import Graphics
import Input
import UI
import TestSupport
import XCTest
@testable import GuessPicture

private let dataDirectory = TestPaths(file: #filePath).data

typealias QuizDriver = SceneHarness<GuessPictureScene>

/// Guess Picture as the kiosk makes it, with the shipped packs; shots are named by size and
/// language.
func makeQuizDriver(width: Int, height: Int, language: Language, seed: UInt64 = 1,
                    dataDirectory: String = dataDirectory) -> QuizDriver {
    let driver = QuizDriver(width: width, height: height, language: language, seed: seed,
                            dataDirectory: dataDirectory) { GuessPictureScene($0) }
    driver.shotSuffix = "\(width)x\(height)-\(language.rawValue)"
    // A player's tap: lifted 30 ms later, then 0.1 s of frames.
    driver.tapHold = 0
    driver.tapSettle = 0.1
    return driver
}

extension SceneHarness where S == GuessPictureScene {
    var answer: [Character] { scene.game.question!.answer }

    /// The button of a visible option showing `character` (or any other, when `not` is set).
    func option(_ character: Character, not: Bool = false) -> Button {
        let game = scene.game
        let index = game.options.indices.first {
            !game.optionHidden[$0] && ((game.options[$0] == character) != not)
        }!
        return scene.optionButtons[index]
    }

    func answerRight() {
        for (slot, character) in answer.enumerated() where scene.game.slotCharacters[slot] == nil {
            tap(option(character))
        }
    }
}

final class GuessPictureSceneTests: XCTestCase {
    /// The script: one question right, one wrong then corrected, the hint, the big
    /// picture; then the end of the round. In both languages.
    private func playScript(_ language: Language, width: Int = 800, height: Int = 480) {
        let driver = makeQuizDriver(width: width, height: height, language: language)
        let scene = driver.scene
        XCTAssertNotNil(scene.pack)
        XCTAssertEqual(scene.pack?.language, language.rawValue)
        XCTAssertEqual(driver.sound.requests.first, .music(.guessPicture))
        driver.run(seconds: 0.5)
        // A score of 0 can't pay for a hint: the button is off and says what it needs.
        XCTAssertFalse(scene.hintButton.isEnabled)
        XCTAssertEqual(scene.hintButton.title, language == .chinese ? "需要★1000" : "Need ★1000")
        driver.check("guess-question")

        // Right.
        driver.answerRight()
        XCTAssertEqual(scene.game.judgement, .right)
        XCTAssertEqual(scene.game.score, 800)
        XCTAssertEqual(scene.scoreLabel.text, "★ 800")
        XCTAssertTrue(driver.sound.requests.contains(.effect(.rightAnswer)))
        driver.check("guess-right")
        driver.run(seconds: 0.6)
        XCTAssertEqual(scene.game.index, 1, "the next question after 0.5 s")

        // Wrong, then corrected.
        let answer = driver.answer
        for character in answer { driver.tap(driver.option(character, not: true)) }
        XCTAssertEqual(scene.game.judgement, .wrong)
        XCTAssertTrue(driver.sound.requests.contains(.effect(.wrongAnswer)))
        driver.run(seconds: 0.4)
        driver.check("guess-wrong")
        for slot in scene.slotViews { driver.tap(slot) }
        XCTAssertEqual(scene.game.judgement, .incomplete)
        XCTAssertFalse(scene.game.optionHidden.contains(true), "every character went back")
        driver.answerRight()
        XCTAssertEqual(scene.game.score, 1600)
        driver.run(seconds: 0.6)

        // Hint: 1600 pays for it.
        XCTAssertTrue(scene.hintButton.isEnabled)
        XCTAssertEqual(scene.hintButton.title, language == .chinese ? "提示 −1000" : "Hint −1000")
        driver.tap(scene.hintButton)
        XCTAssertEqual(scene.game.score, 600)
        XCTAssertEqual(scene.game.slotCharacters.first!, driver.answer.first)
        driver.run(seconds: 0.4)
        driver.check("guess-hint")

        // Big picture: tap the picture, it grows for a second; a tap anywhere restores it.
        driver.tap(scene.pictureCard)
        driver.run(seconds: 1.1)
        driver.check("guess-big-picture")
        driver.tap(Point(30, 30))
        driver.run(seconds: 0.4)
        XCTAssertFalse(scene.subviews.contains { $0 is BigPictureOverlay })
        XCTAssertEqual(scene.game.index, 2, "the tap that closed the picture did nothing else")

        // Next up to the round's last question: "next" turns off there; answering ends the
        // round, with its result for the kiosk's high-score table.
        var results: [GameResult] = []
        scene.onResult = { results.append($0) }
        while scene.game.canGoNext { driver.tap(scene.nextButton) }
        XCTAssertFalse(scene.nextButton.isEnabled)
        XCTAssertEqual(scene.game.index, 9)
        XCTAssertTrue(scene.progressLabel.text.hasPrefix("10/10 · 45 "), scene.progressLabel.text)
        driver.run(seconds: 0.2)
        driver.check("guess-last")
        driver.answerRight()
        driver.run(seconds: 1.6)
        XCTAssertTrue(scene.game.isFinished)
        XCTAssertEqual(results, [GameResult(score: 1400, variantKey: "guess.best.\(language.rawValue).round")])
        XCTAssertEqual(driver.storage.integer("guess.best.\(language.rawValue).round"), 1600, "the highest score reached")
        driver.check("guess-end")
        driver.tap(scene.endPanel!.buttons[0])
        XCTAssertEqual(scene.game.index, 10, "the next round goes on through the dealt pack")
        XCTAssertEqual(scene.game.progressText, "1/10")
        XCTAssertEqual(scene.game.score, 0)
    }

    func testEnglishScript() { playScript(.english) }

    /// The end of a round in both languages, landscape and portrait: every answer right.
    func testRoundOverPanelOnEveryScreen() {
        checkEndPanels("guess-round-over", make: { makeQuizDriver(width: $0, height: $1, language: $2) }) { driver in
            while !driver.scene.game.isFinished {
                driver.answerRight()
                driver.run(seconds: 0.6)
            }
        }
    }
    func testChineseScript() { playScript(.chinese) }

    func testPortraitAndBigScreen() {
        let portrait = makeQuizDriver(width: 480, height: 800, language: .chinese)
        portrait.run(seconds: 0.3)
        portrait.check("guess-question")
        let big = makeQuizDriver(width: 1280, height: 800, language: .english, seed: 2)
        big.tap(big.option(big.answer[0]))
        big.run(seconds: 0.3)
        big.check("guess-question")
    }

    func testKeysWorkTheQuizToo() {
        let driver = makeQuizDriver(width: 800, height: 480, language: .english)
        var wentHome = false
        driver.scene.onHome = { wentHome = true }
        func press(_ key: Key) {
            driver.screen.handle(.key(KeyEvent(key: key, isPressed: true, time: driver.now)))
            driver.screen.handle(.key(KeyEvent(key: key, isPressed: false, time: driver.now + 0.05)))
            driver.run(seconds: 0.1)
        }
        // The big picture goes away with any key, back included, without leaving the game.
        driver.tap(driver.scene.bigButton)
        driver.run(seconds: 1.1)
        press(.back)
        driver.run(seconds: 0.4)
        XCTAssertFalse(driver.scene.subviews.contains { $0 is BigPictureOverlay })
        XCTAssertFalse(wentHome)
        // A filled slot can take the focus and send its character back.
        driver.tap(driver.option(driver.answer[0]))
        driver.scene.focus(driver.scene.slotViews[0])
        press(.confirm)
        XCTAssertEqual(driver.scene.game.slotCharacters[0], nil)
        // Focus moves between option buttons with the arrows and confirm picks one.
        driver.scene.focus(driver.scene.optionButtons[0])
        press(.right)
        XCTAssertTrue(driver.scene.focusedView === driver.scene.optionButtons[1])
        press(.confirm)
        XCTAssertEqual(driver.scene.game.slotCharacters[0], driver.scene.game.options[1])
        press(.back)
        XCTAssertTrue(wentHome, "back leaves the game when nothing is open")
    }

    func testNoPacksShowsWhyInsteadOfCrashing() throws {
        let dir = NSTemporaryDirectory() + "nopacks-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/packs", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("{\"language\": \"en\", \"questions\": []}".utf8).write(to: URL(fileURLWithPath: dir + "/packs/en.json"))
        let driver = makeQuizDriver(width: 800, height: 480, language: .english, dataDirectory: dir)
        XCTAssertNil(driver.scene.pack)
        XCTAssertEqual(driver.scene.packErrors.map(\.description), ["pack en: \"questions\" is empty"])
        driver.tap(Point(400, 300))
        driver.run(seconds: 0.2)
        XCTAssertTrue(driver.scene.game.isFinished)
    }

    func testAttractModeAnswersQuestions() {
        let driver = makeQuizDriver(width: 800, height: 480, language: .english, seed: 5)
        driver.scene.isAutoplaying = true
        driver.run(seconds: 30, fps: 10)
        XCTAssertGreaterThanOrEqual(driver.scene.game.index, 3)
        driver.scene.pause()
        XCTAssertNil(driver.storage.integer("guess.best.en.round"), "the attract mode keeps no best score")
    }

    /// Nobody at the cabinet: each question's clock runs out and the round still ends, with
    /// its result (a paid game is never endless).
    func testTheClockEndsARoundNobodyPlays() {
        let driver = makeQuizDriver(width: 480, height: 800, language: .chinese, seed: 3)
        let scene = driver.scene
        var results: [GameResult] = []
        scene.onResult = { results.append($0) }
        driver.run(seconds: 35.5, fps: 10)
        XCTAssertEqual(scene.progressLabel.text, "1/10 · 10 秒")
        driver.check("guess-clock")
        driver.run(seconds: 10, fps: 10)
        XCTAssertEqual(scene.game.index, 1, "the clock moved on to the second question")
        XCTAssertTrue(driver.sound.requests.contains(.effect(.wrongAnswer)))
        driver.run(seconds: 45 * 9, fps: 4)
        XCTAssertTrue(scene.game.isFinished)
        XCTAssertEqual(results, [GameResult(score: 0, variantKey: "guess.best.zh.round")])
        XCTAssertNotNil(scene.endPanel)
    }
}
