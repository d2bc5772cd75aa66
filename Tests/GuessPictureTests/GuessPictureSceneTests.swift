import Audio
import Foundation
import Graphics
import Input
import UI
import XCTest
@testable import GuessPicture

private let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
private let repoDirectory = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
private let referenceDirectory = testsDirectory.appendingPathComponent("References").path
private let outDirectory = repoDirectory.appendingPathComponent("out").path
private let dataDirectory = repoDirectory.appendingPathComponent("data").path

final class QuizDriver {
    let screen: Screen
    let scene: GuessPictureScene
    let sound = RecordingSoundBoard()
    let storage = MemoryStorage()
    var now = 100.0
    private var touchID = 1
    let suffix: String

    init(width: Int, height: Int, language: Language, seed: UInt64 = 1, dataDirectory: String = dataDirectory) {
        screen = Screen(width: width, height: height)
        scene = GuessPictureScene(sound: sound, storage: storage, language: language, seed: seed,
                                  dataDirectory: dataDirectory)
        suffix = "\(width)x\(height)-\(language.rawValue)"
        screen.show(scene, now: now)
        screen.renderFrame(now: now)
    }

    func run(seconds: Double, fps: Double = 20) {
        for _ in 0..<Int((seconds * fps).rounded()) {
            now += 1 / fps
            screen.renderFrame(now: now)
        }
    }

    func tap(_ point: Point) {
        let x = point.x * screen.scale, y = point.y * screen.scale
        touchID += 1
        screen.handle(.touch(TouchEvent(phase: .down, id: touchID, x: x, y: y, time: now)))
        screen.handle(.touch(TouchEvent(phase: .up, id: touchID, x: x, y: y, time: now + 0.03)))
        run(seconds: 0.1)
    }

    func tap(_ view: View) { tap(view.rectInRoot.center) }

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

    func check(_ name: String, file: StaticString = #filePath, line: UInt = #line) {
        let full = "\(name)-\(suffix)"
        try? FileManager.default.createDirectory(atPath: outDirectory + "/shots", withIntermediateDirectories: true)
        try? screen.shadow.writePNG(outDirectory + "/shots/\(full).png")
        if let mismatch = ReferenceImages.check(screen.shadow, reference: "\(referenceDirectory)/\(full).png",
                                                failureDirectory: outDirectory + "/test-failures") {
            XCTFail(mismatch.description, file: file, line: line)
        }
    }
}

final class GuessPictureSceneTests: XCTestCase {
    /// The script: one question right, one wrong then corrected, the hint, the big
    /// picture; then the end of the pack. In both languages.
    private func playScript(_ language: Language, width: Int = 800, height: Int = 480) {
        let driver = QuizDriver(width: width, height: height, language: language)
        let scene = driver.scene
        XCTAssertNotNil(scene.pack)
        XCTAssertEqual(scene.pack?.language, language.rawValue)
        XCTAssertEqual(driver.sound.requests.first, .music(.guessPicture))
        driver.run(seconds: 0.5)
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

        // Hint.
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

        // Next up to the last question: "next" turns off there; answering ends the pack.
        while scene.game.canGoNext { driver.tap(scene.nextButton) }
        XCTAssertFalse(scene.nextButton.isEnabled)
        XCTAssertEqual(scene.game.index, scene.game.questions.count - 1)
        driver.run(seconds: 0.2)
        driver.check("guess-last")
        driver.answerRight()
        driver.run(seconds: 1)
        XCTAssertTrue(scene.game.isFinished)
        XCTAssertEqual(driver.storage.integer("guess.best.\(language.rawValue)"), 1600, "the highest score reached")
        driver.check("guess-end")
        driver.tap(scene.subviews.compactMap { $0 as? EndOfPackOverlay }.first!.button)
        XCTAssertEqual(scene.game.index, 0)
        XCTAssertEqual(scene.game.score, 0)
    }

    func testEnglishScript() { playScript(.english) }
    func testChineseScript() { playScript(.chinese) }

    func testPortraitAndBigScreen() {
        let portrait = QuizDriver(width: 480, height: 800, language: .chinese)
        portrait.run(seconds: 0.3)
        portrait.check("guess-question")
        let big = QuizDriver(width: 1280, height: 800, language: .english, seed: 2)
        big.tap(big.option(big.answer[0]))
        big.run(seconds: 0.3)
        big.check("guess-question")
    }

    func testNoPacksShowsWhyInsteadOfCrashing() throws {
        let dir = NSTemporaryDirectory() + "nopacks-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/packs", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("{\"language\": \"en\", \"questions\": []}".utf8).write(to: URL(fileURLWithPath: dir + "/packs/en.json"))
        let driver = QuizDriver(width: 800, height: 480, language: .english, dataDirectory: dir)
        XCTAssertNil(driver.scene.pack)
        XCTAssertEqual(driver.scene.packErrors.map(\.description), ["pack en: \"questions\" is empty"])
        driver.tap(Point(400, 300))
        driver.run(seconds: 0.2)
        XCTAssertTrue(driver.scene.game.isFinished)
    }

    func testAttractModeAnswersQuestions() {
        let driver = QuizDriver(width: 800, height: 480, language: .english, seed: 5)
        driver.scene.isAutoplaying = true
        driver.run(seconds: 30, fps: 10)
        XCTAssertGreaterThanOrEqual(driver.scene.game.index, 3)
        driver.scene.pause()
        XCTAssertNil(driver.storage.integer("guess.best.en"), "the attract mode keeps no best score")
    }
}
