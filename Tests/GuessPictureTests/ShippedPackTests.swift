import Foundation
import UI
import XCTest
@testable import GuessPicture

private let repoDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// The packs shipped in data/packs, question by question, against the fairness rules of
/// tools/packs/review.txt: a player must be able to answer from the picture and the clue.
final class ShippedPackTests: XCTestCase {
    /// language -> the titles tools/packs/clues.txt allows.
    private func allowedTitles() throws -> [String: Set<String>] {
        let text = try String(contentsOf: repoDirectory.appendingPathComponent("tools/packs/clues.txt"), encoding: .utf8)
        var titles: [String: Set<String>] = ["zh": [], "en": []]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(fields.count, 3, "clues.txt: \(line)")
            guard fields.count == 3 else { continue }
            titles["zh"]!.insert(fields[1])
            titles["en"]!.insert(fields[2])
        }
        return titles
    }

    func testEveryShippedQuestionIsFair() throws {
        let titles = try allowedTitles()
        XCTAssertGreaterThanOrEqual(titles["zh"]!.count, 10)
        let fonts = UIEnvironment.fonts
        let (packs, errors) = QuestionPack.loadAll(directory: repoDirectory.appendingPathComponent("data/packs").path) {
            $0.unicodeScalars.count == 1 && fonts.hasEmoji($0.unicodeScalars.first!)
        }
        XCTAssertEqual(errors, [], "every picture is one code point the emoji font draws")
        XCTAssertEqual(Set(packs.map(\.language)), ["zh", "en"])
        for pack in packs {
            let questions = pack.questions
            XCTAssertGreaterThanOrEqual(questions.count, 150, "\(pack.id): at least 150 fair questions")
            XCTAssertEqual(Set(questions.map(\.picture)).count, questions.count, "\(pack.id): a picture is asked once")
            XCTAssertEqual(Set(questions.map { String($0.answer) }).count, questions.count, "\(pack.id): an answer is asked once")
            for question in questions {
                let answer = String(question.answer)
                let label = "\(pack.id) \(question.picture) \(answer)"
                if pack.language == "en" {
                    XCTAssertTrue((3...7).contains(answer.count), "\(label): 3-7 letters")
                    XCTAssertTrue(answer.unicodeScalars.allSatisfy { (65...90).contains($0.value) }, "\(label): capital letters only")
                } else {
                    XCTAssertTrue((2...4).contains(answer.count), "\(label): 2-4 characters")
                    XCTAssertTrue(answer.unicodeScalars.allSatisfy { (0x4E00...0x9FFF).contains($0.value) }, "\(label): Han characters only")
                }
                XCTAssertTrue(titles[pack.language]!.contains(question.title), "\(label): clue \(question.title) is not in clues.txt")
                // The options hold every character of the answer, as often as the answer uses it.
                var left = question.options
                for character in question.answer {
                    guard let at = left.firstIndex(of: character) else {
                        XCTFail("\(label): the options lack \(character)")
                        break
                    }
                    left.remove(at: at)
                }
                XCTAssertEqual(question.options.count, Question.optionCount, label)
            }
        }
    }

    /// Bad picks from the generated packs of before (an action, a forecast, a card suit) stay out.
    func testTheUnfairPicturesOfTheOldPacksAreGone() throws {
        let (packs, _) = QuestionPack.loadAll(directory: repoDirectory.appendingPathComponent("data/packs").path)
        let pictures = Set(packs.flatMap { $0.questions.map(\.picture) })
        for unfair in ["📩", "🌤", "♥"] {
            XCTAssertFalse(pictures.contains(unfair), unfair)
        }
    }
}
