import Foundation
import XCTest
@testable import GuessPicture

private let repoDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// Only the answer may fit a question's slots: no other word that fits the picture under its
/// clue (another answer under the same clue, or a word of tools/packs/synonyms.txt) can be
/// spelled from the options the game deals, in the answer's number of slots.
final class PackFairnessTests: XCTestCase {
    /// picture -> language -> words, from tools/packs/synonyms.txt.
    static func synonyms() throws -> [String: [String: [String]]] {
        let text = try String(contentsOf: repoDirectory.appendingPathComponent("tools/packs/synonyms.txt"), encoding: .utf8)
        var result: [String: [String: [String]]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(fields.count, 3, "synonyms.txt: \(line)")
            guard fields.count == 3 else { continue }
            func words(_ field: String) -> [String] { field == "-" ? [] : field.split(separator: " ").map(String.init) }
            result[fields[0]] = ["zh": words(fields[1]), "en": words(fields[2])]
        }
        return result
    }

    /// "🐔 母鸡: 公鸡" for every question of the pack where a rival can be entered: the options
    /// and slots are the ones the game deals (GuessPictureModel), not the file's.
    static func unfairQuestions(_ pack: QuestionPack, synonyms: [String: [String: [String]]]) -> [String] {
        var found: [String] = []
        for (number, question) in pack.questions.enumerated() {
            let game = GuessPictureModel(questions: [question], seed: UInt64(number + 1))
            var offered: [Character: Int] = [:]
            for option in game.options { offered[option, default: 0] += 1 }
            let slots = game.slots.count
            let others = pack.questions.filter { $0.title == question.title && $0.picture != question.picture }.map { String($0.answer) }
            let rivals = (others + (synonyms[question.picture]?[pack.language] ?? [])).filter { $0.count == slots }
            let spelled = rivals.filter { rival in
                var left = offered
                return rival.allSatisfy { character in
                    guard let count = left[character], count > 0 else { return false }
                    left[character] = count - 1
                    return true
                }
            }
            if !spelled.isEmpty {
                found.append("\(question.picture) \(String(question.answer)): \(spelled.joined(separator: " "))")
            }
        }
        return found
    }

    func testNoShippedQuestionLetsAnotherFittingWordBeSpelled() throws {
        let synonyms = try Self.synonyms()
        XCTAssertEqual(synonyms["🪐"]?["en"], ["PLANET"], "the synonym list is read")
        XCTAssertTrue(synonyms["🐎"]?["zh"]?.contains("小马") ?? false, "the synonym list is read")
        let (packs, errors) = QuestionPack.loadAll(directory: repoDirectory.appendingPathComponent("data/packs").path)
        XCTAssertEqual(errors, [])
        XCTAssertEqual(Set(packs.map(\.language)), ["zh", "en"])
        for pack in packs {
            let unfair = Self.unfairQuestions(pack, synonyms: synonyms)
            XCTAssertEqual(unfair, [], "\(pack.id): \(unfair.count) of \(pack.questions.count) questions let another fitting word be spelled (fix tools/packs and run tools/make-packs.py)")
        }
    }

    /// Every picture in the synonym list is asked in some pack, so no word there is stale.
    func testTheSynonymListNamesShippedPictures() throws {
        let synonyms = try Self.synonyms()
        let (packs, _) = QuestionPack.loadAll(directory: repoDirectory.appendingPathComponent("data/packs").path)
        var shipped: [String: Set<String>] = [:]
        for pack in packs { shipped[pack.language] = Set(pack.questions.map(\.picture)) }
        for (picture, words) in synonyms {
            for (language, list) in words where !list.isEmpty {
                XCTAssertTrue(shipped[language]?.contains(picture) ?? false, "\(picture) has \(language) synonyms but is not in the \(language) pack")
            }
        }
    }

    /// The check finds the unfair questions the issue named (母鸡 with 公 offered while 公鸡
    /// is another bird; SATURN where PLANET can be spelled) and lets a longer word pass.
    func testTheCheckFindsARivalThatCanBeSpelled() {
        func question(_ picture: String, _ title: String, _ answer: String, _ extra: String, filler: String) -> Question {
            var options = Array(answer) + Array(extra)
            for character in filler where options.count < Question.optionCount && !options.contains(character) {
                options.append(character)
            }
            return Question(picture: picture, title: title, answer: answer, options: options)
        }
        let han = "一二三四五六七八九十天地人和山水火木金土日月星云雨风"
        let birds = QuestionPack(id: "zh", language: "zh", name: "test", questions: [
            question("🐔", "鸟", "母鸡", "公", filler: han),
            question("🐓", "鸟", "公鸡", "", filler: han),
            question("🐎", "动物", "骏马", "小驹", filler: han),
        ])
        XCTAssertEqual(Self.unfairQuestions(birds, synonyms: ["🐎": ["zh": ["小马驹"]]]), ["🐔 母鸡: 公鸡"],
                       "公鸡 fits 🐔's two slots; 小马驹 has three letters and can't be entered in 骏马's two")
        XCTAssertEqual(Self.unfairQuestions(birds, synonyms: ["🐎": ["zh": ["小马"]]]), ["🐔 母鸡: 公鸡", "🐎 骏马: 小马"])

        let letters = "BDFGHIJLMQVWXYZ"
        let space = QuestionPack(id: "en", language: "en", name: "test", questions: [
            question("🪐", "Space", "SATURN", "PLE", filler: letters),
            question("🚀", "Space", "ROCKET", "", filler: letters),
        ])
        XCTAssertEqual(Self.unfairQuestions(space, synonyms: ["🪐": ["en": ["PLANET"]]]), ["🪐 SATURN: PLANET"])
        XCTAssertEqual(Self.unfairQuestions(space, synonyms: [:]), [], "ROCKET's C, K and O are not among SATURN's options")
    }
}
