import GameCore
import Foundation
import XCTest
@testable import GuessPicture

/// A question whose options are the answer followed by filler letters.
private func makeQuestion(_ answer: String, picture: String = "🐱", filler: String = "ZYXWVUTSRQPONMLKJIHGFEDCBA") -> Question {
    var options = Array(answer)
    for character in filler where options.count < Question.optionCount && !answer.contains(character) {
        options.append(character)
    }
    return Question(picture: picture, title: "animal", answer: answer, options: options)
}

final class GuessPictureModelTests: XCTestCase {
    private func option(_ game: GuessPictureModel, _ character: Character, skipping: Set<Int> = []) -> Int {
        game.options.indices.first { game.options[$0] == character && !game.optionHidden[$0] && !skipping.contains($0) }!
    }

    func testOptionsFillTheFirstEmptySlotAndHide() {
        var game = GuessPictureModel(questions: [makeQuestion("猫咪")], seed: 1)
        XCTAssertEqual(game.options.count, 21)
        XCTAssertEqual(game.slots, [nil, nil])
        let cat = option(game, "猫")
        XCTAssertEqual(game.tapOption(cat), [.placed(option: cat, slot: 0)])
        XCTAssertTrue(game.optionHidden[cat])
        XCTAssertEqual(game.tapOption(cat), [], "a hidden option can't be tapped again")
        XCTAssertEqual(game.slotCharacters, ["猫", nil])
        // Empty the first slot: the next pick goes there, not after the second.
        let z = option(game, "Z")
        game.tapOption(z)
        game.tapSlot(0)
        XCTAssertEqual(game.slotCharacters, [nil, "Z"])
        XCTAssertFalse(game.optionHidden[cat])
        game.tapOption(cat)
        XCTAssertEqual(game.slotCharacters, ["猫", "Z"])
    }

    func testARepeatedCharacterGoesBackToItsOwnOption() {
        var game = GuessPictureModel(questions: [makeQuestion("ABBA")], seed: 2)
        let bs = game.options.indices.filter { game.options[$0] == "B" }
        XCTAssertEqual(bs.count, 2)
        let a = option(game, "A")
        game.tapOption(a)
        game.tapOption(bs[1])  // slot 1
        game.tapOption(bs[0])  // slot 2
        XCTAssertEqual(game.tapSlot(1), [.returned(slot: 1, option: bs[1])])
        XCTAssertFalse(game.optionHidden[bs[1]], "the B that went into slot 1 shows again")
        XCTAssertTrue(game.optionHidden[bs[0]], "the other B stays in slot 2")
        XCTAssertEqual(game.tapSlot(1), [], "an empty slot does nothing")
        XCTAssertEqual(game.tapSlot(2), [.returned(slot: 2, option: bs[0])])
        XCTAssertFalse(game.optionHidden[bs[0]])
        XCTAssertEqual(game.optionHidden.filter { $0 }.count, 1)
    }

    func testARightAnswerTurnsBlueScoresAndAdvancesAfterHalfASecond() {
        var game = GuessPictureModel(questions: [makeQuestion("CAT"), makeQuestion("DOG")], seed: 3)
        game.tapOption(option(game, "C"))
        game.tapOption(option(game, "A"))
        XCTAssertEqual(game.judgement, .incomplete)
        let t = option(game, "T")
        XCTAssertEqual(game.tapOption(t), [.placed(option: t, slot: 2), .right(score: 800)])
        XCTAssertEqual(game.judgement, .right)
        XCTAssertEqual(game.score, 800)
        // While it waits, taps are ignored.
        XCTAssertEqual(game.tapSlot(0), [])
        XCTAssertEqual(game.hint(), [])
        XCTAssertEqual(game.advance(by: 0.3), [])
        XCTAssertEqual(game.index, 0)
        XCTAssertEqual(game.advance(by: 0.2), [.newQuestion(index: 1)])
        XCTAssertEqual(game.index, 1)
        XCTAssertEqual(game.judgement, .incomplete)
        XCTAssertEqual(game.slots, [nil, nil, nil])
        XCTAssertEqual(game.optionHidden, Array(repeating: false, count: 21))
        XCTAssertEqual(game.progressText, "2/2")
    }

    func testAWrongAnswerTurnsRedUntilASlotIsEmptied() {
        var game = GuessPictureModel(questions: [makeQuestion("CAT")], seed: 4)
        game.tapOption(option(game, "T"))
        game.tapOption(option(game, "A"))
        XCTAssertEqual(game.tapOption(option(game, "C")).last, .wrong)
        XCTAssertEqual(game.judgement, .wrong)
        XCTAssertEqual(game.score, 0, "a wrong answer costs nothing")
        XCTAssertEqual(game.tapOption(option(game, "Z")), [], "no empty slot: nothing happens")
        XCTAssertEqual(game.judgement, .wrong)
        game.tapSlot(0)
        XCTAssertEqual(game.judgement, .incomplete)
        game.tapSlot(2)
        game.tapOption(option(game, "C"))
        XCTAssertEqual(game.tapOption(option(game, "T")).last, .right(score: 800))
    }

    /// Answers the current question right, option by option.
    private func answerRight(_ game: inout GuessPictureModel) {
        for slot in game.slots.indices where game.slots[slot] == nil {
            game.tapOption(option(game, game.question!.answer[slot]))
        }
        game.advance(by: game.rules.advanceDelay)
    }

    func testTheHintWaitsUntilTheScoreCoversItsCost() {
        var game = GuessPictureModel(questions: ["CAT", "COW", "DOG", "EMU"].map { makeQuestion($0) }, seed: 5)
        XCTAssertFalse(game.canHint, "a score of 0 can't pay 1000")
        XCTAssertEqual(game.hint(), [])
        XCTAssertEqual(game.score, 0, "the score never goes negative")
        answerRight(&game)
        XCTAssertEqual(game.score, 800)
        XCTAssertFalse(game.canHint)
        answerRight(&game)
        XCTAssertEqual(game.score, 1600)
        XCTAssertTrue(game.canHint)
        XCTAssertTrue(game.canAffordHint)
    }

    func testHintClearsPlacesTheFirstCharacterAndCosts1000() {
        var game = GuessPictureModel(questions: ["CAT", "COW", "DOG"].map { makeQuestion($0) }, seed: 5)
        answerRight(&game)
        answerRight(&game)
        game.tapOption(option(game, "X"))
        game.tapOption(option(game, "Y"))
        let events = game.hint()
        XCTAssertEqual(events.first, .hint(score: 600))
        XCTAssertEqual(game.score, 600)
        XCTAssertEqual(game.slotCharacters, ["D", nil, nil])
        XCTAssertEqual(game.optionHidden.filter { $0 }.count, 1, "the X and Y went back")
        XCTAssertFalse(game.canHint, "600 can't pay for another")
        XCTAssertEqual(game.hint(), [])
        game.tapOption(option(game, "O"))
        game.tapOption(option(game, "G"))
        XCTAssertEqual(game.score, 1400)
        XCTAssertEqual(game.hintsUsed, 1)
    }

    func testAHintThatCompletesAOneCharacterAnswerIsJudged() {
        var rules = GuessPictureRules()
        rules.hintCost = 0
        var game = GuessPictureModel(questions: [makeQuestion("猫")], seed: 6, rules: rules)
        XCTAssertEqual(game.hint().last, .right(score: 800))
    }

    func testNextSkipsAndIsDisabledOnTheLastQuestion() {
        var game = GuessPictureModel(questions: [makeQuestion("ONE"), makeQuestion("TWO"), makeQuestion("SIX")], seed: 7)
        XCTAssertTrue(game.canGoNext)
        XCTAssertEqual(game.next(), [.newQuestion(index: 1)])
        XCTAssertEqual(game.next(), [.newQuestion(index: 2)])
        XCTAssertFalse(game.canGoNext)
        XCTAssertEqual(game.next(), [])
        XCTAssertEqual(game.index, 2)
        XCTAssertEqual(game.score, 0, "skipping is free")
    }

    func testTheLastRightAnswerEndsThePack() {
        var game = GuessPictureModel(questions: [makeQuestion("OX")], seed: 8)
        game.tapOption(option(game, "O"))
        game.tapOption(option(game, "X"))
        XCTAssertFalse(game.isFinished)
        XCTAssertEqual(game.advance(by: 0.5), [.finished(score: 800)])
        XCTAssertTrue(game.isFinished)
        XCTAssertFalse(game.canGoNext)
        XCTAssertEqual(game.tapOption(0), [])
        XCTAssertEqual(game.hint(), [])
        game.restart()
        XCTAssertFalse(game.isFinished)
        XCTAssertEqual(game.score, 0)
        XCTAssertEqual(game.index, 0)
        XCTAssertEqual(game.slots, [nil, nil])
    }

    func testQuestionsCanBeDealtInANewOrderEachGame() {
        let questions = ["ONE", "TWO", "SIX", "TEN", "CAT", "DOG", "OWL", "BEE"].map { makeQuestion($0) }
        XCTAssertEqual(GuessPictureModel(questions: questions, seed: 1).questions, questions, "pack order by default")
        var rules = GuessPictureRules()
        rules.shufflesQuestions = true
        var game = GuessPictureModel(questions: questions, seed: 1, rules: rules)
        let first = game.questions
        XCTAssertNotEqual(first, questions)
        XCTAssertEqual(Set(first.map { String($0.answer) }), Set(questions.map { String($0.answer) }))
        game.restart()
        XCTAssertNotEqual(game.questions, first, "a new order after a restart")
        XCTAssertEqual(GuessPictureModel(questions: questions, seed: 1, rules: rules).questions, first, "deterministic")
    }

    func testARoundIsTenQuestionsAndTheNextGoesOnThroughThePack() {
        let answers = (0..<25).map { String(UnicodeScalar(UInt8(65 + $0 % 26))) + "A" }
        var game = GuessPictureModel(questions: answers.map { makeQuestion($0) }, seed: 3)
        XCTAssertEqual(game.roundCount, 10)
        XCTAssertEqual(game.progressText, "1/10")
        for _ in 0..<9 { game.next() }
        XCTAssertEqual(game.progressText, "10/10")
        XCTAssertFalse(game.canGoNext, "no skipping past the round's last question")
        game.tapOption(option(game, game.question!.answer[0]))
        game.tapOption(option(game, game.question!.answer[1]))
        XCTAssertEqual(game.advance(by: 0.5), [.finished(score: 800)])
        game.restart()
        XCTAssertEqual(game.index, 10, "the second round deals the next ten pictures")
        XCTAssertEqual(game.score, 0)
        for _ in 0..<9 { game.next() }
        game.tapOption(option(game, game.question!.answer[0]))
        game.tapOption(option(game, game.question!.answer[1]))
        game.advance(by: 0.5)
        game.restart()
        XCTAssertEqual(game.index, 0, "five left are not a round: the pack is dealt again")
        var whole = GuessPictureRules()
        whole.roundLength = 0
        XCTAssertEqual(GuessPictureModel(questions: answers.map { makeQuestion($0) }, seed: 3, rules: whole).roundCount, 25)
    }

    func testTheClockMissesAQuestionAndEndsTheRound() {
        var rules = GuessPictureRules()
        rules.secondsPerQuestion = 30
        var game = GuessPictureModel(questions: ["ONE", "TWO"].map { makeQuestion($0) }, seed: 4, rules: rules)
        XCTAssertEqual(game.roundCount, 2)
        XCTAssertEqual(game.secondsLeftText, 30)
        XCTAssertEqual(game.advance(by: 29.2), [])
        XCTAssertEqual(game.secondsLeftText, 1)
        XCTAssertEqual(game.advance(by: 1), [.timeUp, .newQuestion(index: 1)])
        XCTAssertEqual(game.secondsLeftText, 30, "a new question, a new clock")
        game.tapOption(option(game, "T"))
        XCTAssertEqual(game.advance(by: 30), [.timeUp, .finished(score: 0)])
        XCTAssertTrue(game.isFinished)
        XCTAssertEqual(game.advance(by: 100), [])
        var untimed = GuessPictureRules()
        untimed.secondsPerQuestion = 0
        var calm = GuessPictureModel(questions: [makeQuestion("ONE")], seed: 4, rules: untimed)
        XCTAssertNil(calm.secondsLeftText)
        XCTAssertEqual(calm.advance(by: 3600), [])
    }

    func testAnEmptyListStartsFinished() {
        var game = GuessPictureModel(questions: [], seed: 9)
        XCTAssertTrue(game.isFinished)
        XCTAssertNil(game.question)
        XCTAssertEqual(game.tapOption(0), [])
        XCTAssertEqual(game.hint(), [])
    }

    func testOptionsAreShuffledOncePerQuestionAndKeepTheirCharacters() {
        let question = makeQuestion("CAT")
        var game = GuessPictureModel(questions: [question, question], seed: 10)
        XCTAssertEqual(game.options.sorted(), question.options.sorted())
        XCTAssertNotEqual(game.options, question.options)
        let first = game.options
        game.tapOption(0)
        game.tapSlot(0)
        XCTAssertEqual(game.options, first, "no reshuffle while answering")
        game.next()
        XCTAssertEqual(game.options.sorted(), question.options.sorted())
        XCTAssertEqual(GuessPictureModel(questions: [question], seed: 10).options, first, "deterministic for a seed")
    }

    /// Where an option lands, through the game itself: every one of 21 positions about
    /// equally often (the generator's own shuffle is tested in GameCoreTests).
    func testTheOptionsShuffleIsUniform() {
        // Where option 0 of 21 lands, through the game itself: 20 degrees of freedom.
        var positions = [Int](repeating: 0, count: 21)
        let question = makeQuestion("Q", filler: "abcdefghijklmnopqrstu")
        let games = 21_000
        var game = GuessPictureModel(questions: Array(repeating: question, count: 2), seed: 77)
        for _ in 0..<games {
            game.restart()  // reshuffles the first question
            positions[game.options.firstIndex(of: "Q")!] += 1
        }
        let expectedPosition = Double(games) / 21
        let chiPositions = positions.reduce(0.0) { $0 + pow(Double($1) - expectedPosition, 2) / expectedPosition }
        XCTAssertLessThan(chiPositions, 45.3, "p = 0.001 critical value for 20 degrees of freedom")
    }

    func testTheAutoplayerFinishesAPack() {
        let questions = ["CAT", "DOG", "OWL", "BEE", "COW"].map { makeQuestion($0) }
        var game = GuessPictureModel(questions: questions, seed: 11)
        var player = GuessPictureAutoplayer(seed: 11)
        var mistakes = 0
        for _ in 0..<(60 * 60 * 2) {
            if let action = player.action(after: 1.0 / 60, in: game) {
                switch action {
                case .tapOption(let i):
                    if game.tapOption(i).contains(.wrong) { mistakes += 1 }
                case .tapSlot(let i): game.tapSlot(i)
                case .hint: game.hint()
                case .next: game.next()
                }
            }
            game.advance(by: 1.0 / 60)
            if game.isFinished { break }
        }
        XCTAssertTrue(game.isFinished)
        XCTAssertEqual(game.answeredRight, 5)
    }
}

final class QuestionPackTests: XCTestCase {
    private func pack(_ questions: String, extra: String = "\"language\": \"en\",") -> [UInt8] {
        Array("{\"format\": 1, \(extra) \"name\": \"test\", \"questions\": [\(questions)]}".utf8)
    }

    private func question(picture: String = "\"🐱\"", title: String = "\"animal\"", answer: String = "\"CAT\"",
                          options: String? = nil) -> String {
        let list = options ?? "[" + "CATBDEFGHIJKLMNOPQRSU".map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return "{\"picture\": \(picture), \"title\": \(title), \"answer\": \(answer), \"options\": \(list)}"
    }

    private func problem(_ bytes: [UInt8], hasPicture: (String) -> Bool = { _ in true }) -> PackError? {
        do {
            _ = try QuestionPack.parse(bytes, id: "bad", hasPicture: hasPicture)
            XCTFail("accepted a bad pack")
            return nil
        } catch {
            return error
        }
    }

    func testAValidPackLoads() throws {
        let loaded = try QuestionPack.parse(pack(question() + "," + question(answer: "\"BAT\"")), id: "en")
        XCTAssertEqual(loaded.language, "en")
        XCTAssertEqual(loaded.name, "test")
        XCTAssertEqual(loaded.questions.count, 2)
        XCTAssertEqual(loaded.questions[1].answer, ["B", "A", "T"])
        XCTAssertEqual(loaded.questions[0].options.count, 21)
    }

    func testValidationErrorsNameThePackTheQuestionAndTheProblem() {
        let long = "\"" + String(repeating: "A", count: 22) + "\""
        let cases: [(String, Int?, String)] = [
            (question(picture: "\"\""), 2, "missing picture (it is empty)"),
            ("{\"title\": \"x\", \"answer\": \"CAT\", \"options\": []}", 2, "missing picture"),
            (question(picture: "\"🐱🐶\""), 2, "picture \"🐱🐶\" must be one emoji, it is 2 characters"),
            (question(title: "\"\""), 2, "missing title"),
            (question(answer: long), 2, "answer \"\(String(repeating: "A", count: 22))\" is 22 characters, longer than the 21 options"),
            (question(answer: "\"\""), 2, "the answer is empty"),
            (question(answer: "\"CAT DOG\""), 2, "answer \"CAT DOG\" contains a space"),
            (question(answer: "\"COW\""), 2, "the options can't form the answer \"COW\": not enough \"W\""),
            (question(answer: "\"CATT\""), 2, "the options can't form the answer \"CATT\": not enough \"T\""),
            (question(options: "[\"A\", \"B\"]"), 2, "has 2 options, needs 21"),
            (question(options: "\"CAT\""), 2, "options must be an array, found a string"),
            (question(options: "[\"AB\"]"), 2, "option 1 must be a string of one character, found \"AB\""),
            (question(options: "[1]"), 2, "option 1 must be a string of one character, found a number"),
            ("42", 2, "must be an object, found a number"),
        ]
        for (bad, number, message) in cases {
            let error = problem(pack(question() + "," + bad))
            XCTAssertEqual(error?.pack, "bad")
            XCTAssertEqual(error?.question, number, message)
            XCTAssertEqual(error?.problem, message)
        }
        XCTAssertEqual(problem(pack(question() + "," + question(answer: "\"COW\"")))?.description,
                       "pack bad, question 2: the options can't form the answer \"COW\": not enough \"W\"")
    }

    func testPackLevelErrors() {
        XCTAssertEqual(problem(pack(""))?.problem, "\"questions\" is empty")
        XCTAssertEqual(problem(pack(question(), extra: ""))?.problem, "missing \"language\" (a tag such as \"zh\" or \"en\")")
        XCTAssertEqual(problem(Array("[1]".utf8))?.problem, "the file must hold an object, found an array")
        XCTAssertEqual(problem(Array("{\"language\": \"en\"}".utf8))?.problem, "missing \"questions\"")
        XCTAssertEqual(problem(Array("{\"format\": 2, \"language\": \"en\", \"questions\": []}".utf8))?.problem,
                       "format 2 is not supported (this build reads format 1)")
        let broken = problem(Array("{\"language\": \"en\",\n \"questions\": [}".utf8))
        XCTAssertEqual(broken?.problem, "not valid JSON: line 2, column 16: unexpected '}', expected a value")
        XCTAssertNil(broken?.question)
    }

    func testAPictureMissingFromTheFontIsAnError() {
        let error = problem(pack(question()), hasPicture: { $0 != "🐱" })
        XCTAssertEqual(error?.question, 1)
        XCTAssertEqual(error?.problem, "picture 🐱 (U+1F431) is not in the emoji font")
    }

    func testABadPackIsSkippedAndTheRestKept() throws {
        let dir = NSTemporaryDirectory() + "packs-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(pack(question())).write(to: URL(fileURLWithPath: dir + "/good.json"))
        try Data(pack(question(answer: "\"ZZZ\""))).write(to: URL(fileURLWithPath: dir + "/bad.json"))
        try Data("not json".utf8).write(to: URL(fileURLWithPath: dir + "/worse.json"))
        try Data("ignored".utf8).write(to: URL(fileURLWithPath: dir + "/readme.txt"))
        let (packs, errors) = QuestionPack.loadAll(directory: dir)
        XCTAssertEqual(packs.map(\.id), ["good"])
        XCTAssertEqual(errors.map(\.pack), ["bad", "worse"])
        XCTAssertEqual(errors[0].question, 1)
        XCTAssertTrue(errors[1].problem.hasPrefix("not valid JSON: line 1, column 1"), errors[1].problem)

        let missing = QuestionPack.loadAll(directory: dir + "/nope")
        XCTAssertEqual(missing.packs, [])
        XCTAssertEqual(missing.errors.first?.problem, "the pack directory does not exist")
    }

    func testPickFollowsTheLanguage() {
        let zh = QuestionPack(id: "zh", language: "zh", name: "", questions: [])
        let en = QuestionPack(id: "en", language: "en", name: "", questions: [])
        XCTAssertEqual(QuestionPack.pick([en, zh], language: "zh-CN")?.id, "zh")
        XCTAssertEqual(QuestionPack.pick([en, zh], language: "en")?.id, "en")
        XCTAssertEqual(QuestionPack.pick([en, zh], language: "fr")?.id, "en")
        XCTAssertNil(QuestionPack.pick([], language: "en"))
    }
}
