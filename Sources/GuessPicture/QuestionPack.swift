import Platform

/// A question pack: a JSON file of questions in one language, read from the data directory
/// at run time (data/packs/*.json in the source tree, built by tools/make-packs.py).
///
///     {"format": 1, "language": "zh", "name": "看图猜词",
///      "questions": [{"picture": "🐌", "title": "动物", "answer": "蜗牛", "options": ["乌", ...21]}]}
public struct QuestionPack: Equatable, Sendable {
    /// The file's name without ".json" (what errors and logs call it).
    public let id: String
    /// A language tag: "zh", "en"; the kiosk's language setting picks the pack.
    public let language: String
    public let name: String
    public let questions: [Question]

    public init(id: String, language: String, name: String, questions: [Question]) {
        self.id = id
        self.language = language
        self.name = name
        self.questions = questions
    }
}

/// Why a pack can't be used, naming the pack, the question (1-based) and the problem.
public struct PackError: Error, Equatable, CustomStringConvertible, Sendable {
    public let pack: String
    public let question: Int?
    public let problem: String

    public init(pack: String, question: Int? = nil, problem: String) {
        self.pack = pack
        self.question = question
        self.problem = problem
    }

    public var description: String {
        if let question { return "pack \(pack), question \(question): \(problem)" }
        return "pack \(pack): \(problem)"
    }
}

extension QuestionPack {
    public static let supportedFormat = 1

    /// Parses and validates a pack. `hasPicture` says whether a picture can be drawn (the
    /// scene passes the emoji font's coverage); by default any single grapheme is accepted.
    public static func parse(
        _ bytes: [UInt8], id: String, hasPicture: (String) -> Bool = { _ in true }
    ) throws(PackError) -> QuestionPack {
        func fail(_ problem: String, question: Int? = nil) -> PackError {
            PackError(pack: id, question: question, problem: problem)
        }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes: bytes)
        } catch {
            throw fail("not valid JSON: \(error)")
        }
        guard root.object != nil else { throw fail("the file must hold an object, found \(root.kindName)") }
        if let format = root["format"] {
            guard format.int == supportedFormat else {
                throw fail("format \(format.int.map(String.init) ?? format.kindName) is not supported (this build reads format \(supportedFormat))")
            }
        }
        guard let language = root["language"]?.string, !language.isEmpty else {
            throw fail("missing \"language\" (a tag such as \"zh\" or \"en\")")
        }
        let name = root["name"]?.string ?? id
        guard let list = root["questions"] else { throw fail("missing \"questions\"") }
        guard let items = list.array else { throw fail("\"questions\" must be an array, found \(list.kindName)") }
        guard !items.isEmpty else { throw fail("\"questions\" is empty") }

        var questions: [Question] = []
        for (offset, item) in items.enumerated() {
            questions.append(try parseQuestion(item, number: offset + 1, pack: id, hasPicture: hasPicture))
        }
        return QuestionPack(id: id, language: language, name: name, questions: questions)
    }

    static func parseQuestion(
        _ item: JSONValue, number: Int, pack: String, hasPicture: (String) -> Bool
    ) throws(PackError) -> Question {
        func fail(_ problem: String) -> PackError {
            PackError(pack: pack, question: number, problem: problem)
        }
        guard item.object != nil else { throw fail("must be an object, found \(item.kindName)") }

        guard let pictureValue = item["picture"] else { throw fail("missing picture") }
        guard let picture = pictureValue.string else { throw fail("picture must be a string, found \(pictureValue.kindName)") }
        guard !picture.isEmpty else { throw fail("missing picture (it is empty)") }
        guard picture.count == 1 else { throw fail("picture \"\(picture)\" must be one emoji, it is \(picture.count) characters") }
        guard hasPicture(picture) else { throw fail("picture \(picture) (\(codePoints(picture))) is not in the emoji font") }

        guard let title = item["title"]?.string, !title.isEmpty else { throw fail("missing title") }

        guard let answerValue = item["answer"] else { throw fail("missing answer") }
        guard let answer = answerValue.string else { throw fail("answer must be a string, found \(answerValue.kindName)") }
        guard !answer.isEmpty else { throw fail("the answer is empty") }
        guard answer.count <= Question.optionCount else {
            throw fail("answer \"\(answer)\" is \(answer.count) characters, longer than the \(Question.optionCount) options")
        }
        if answer.contains(where: \.isWhitespace) { throw fail("answer \"\(answer)\" contains a space") }

        guard let optionsValue = item["options"] else { throw fail("missing options") }
        guard let optionItems = optionsValue.array else { throw fail("options must be an array, found \(optionsValue.kindName)") }
        var options: [Character] = []
        for (offset, option) in optionItems.enumerated() {
            guard let text = option.string, text.count == 1, let character = text.first else {
                throw fail("option \(offset + 1) must be a string of one character, found \(option.string.map { "\"\($0)\"" } ?? option.kindName)")
            }
            options.append(character)
        }
        guard options.count == Question.optionCount else {
            throw fail("has \(options.count) options, needs \(Question.optionCount)")
        }
        // Every answer character must be there as often as the answer uses it.
        var available: [Character: Int] = [:]
        for option in options { available[option, default: 0] += 1 }
        for character in answer {
            guard let count = available[character], count > 0 else {
                throw fail("the options can't form the answer \"\(answer)\": not enough \"\(character)\"")
            }
            available[character] = count - 1
        }
        return Question(picture: picture, title: title, answer: answer, options: options)
    }

    /// Reads and validates one pack file.
    public static func load(path: String, hasPicture: (String) -> Bool = { _ in true }) throws(PackError) -> QuestionPack {
        let id = packID(path)
        let bytes: [UInt8]
        do {
            bytes = try Files.readBytes(path)
        } catch {
            throw PackError(pack: id, problem: "can't read \(path): \(error)")
        }
        return try parse(bytes, id: id, hasPicture: hasPicture)
    }

    /// Every *.json pack in a directory, in name order. A bad pack is left out and its error
    /// returned (for the log), so the game goes on with the rest.
    public static func loadAll(
        directory: String, hasPicture: (String) -> Bool = { _ in true }
    ) -> (packs: [QuestionPack], errors: [PackError]) {
        var packs: [QuestionPack] = []
        var errors: [PackError] = []
        guard Files.isDirectory(directory) else {
            return ([], [PackError(pack: directory, problem: "the pack directory does not exist")])
        }
        for file in Files.listDirectory(directory) where file.hasSuffix(".json") {
            do {
                packs.append(try load(path: directory + "/" + file, hasPicture: hasPicture))
            } catch {
                errors.append(error)
            }
        }
        return (packs, errors)
    }

    /// The pack for a language ("zh-CN" matches "zh"), else the first one.
    public static func pick(_ packs: [QuestionPack], language: String) -> QuestionPack? {
        let base = language.split(separator: "-").first.map(String.init) ?? language
        return packs.first { $0.language == language } ?? packs.first { $0.language == base } ?? packs.first
    }

    static func packID(_ path: String) -> String {
        var name = path.split(separator: "/").last.map(String.init) ?? path
        if name.hasSuffix(".json") { name.removeLast(5) }
        return name
    }

    static func codePoints(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }
}
