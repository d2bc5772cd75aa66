import GameCore

// The rules of Guess Picture (超级猜图): pure values, the standard library only, time passed in.

/// One puzzle: a picture, its category as the title, the answer and 21 option characters
/// that contain the answer's characters.
public struct Question: Equatable, Sendable {
    public static let optionCount = 21

    /// The picture, an emoji (one grapheme).
    public let picture: String
    /// The category, shown as the title ("animal", "动物").
    public let title: String
    public let answer: [Character]
    /// The options as written in the pack; the game shuffles them per question.
    public let options: [Character]

    public init(picture: String, title: String, answer: String, options: [Character]) {
        self.picture = picture
        self.title = title
        self.answer = Array(answer)
        self.options = options
    }
}


/// What a step did, for the scene's sounds and animations.
public enum GuessPictureEvent: Equatable, Sendable {
    /// The option's character went into the slot.
    case placed(option: Int, slot: Int)
    /// The slot's character went back to its option.
    case returned(slot: Int, option: Int)
    /// The full answer was right; the score is now `score`. The next question follows.
    case right(score: Int)
    /// The full answer was wrong.
    case wrong
    /// A hint was taken; the score is now `score`.
    case hint(score: Int)
    /// The question's time ran out: it counts as missed, the next one follows.
    case timeUp
    /// A new question is showing (after a right answer, "next" or the clock).
    case newQuestion(index: Int)
    /// The round's last question is over: the results.
    case finished(score: Int)
}

public struct GuessPictureRules: Equatable, Sendable {
    public var rightAnswerPoints = 800
    public var hintCost = 1000
    /// Seconds between a right answer and the next question.
    public var advanceDelay = 0.5
    /// Deal the questions in a new order at every start (a kiosk's players see new pictures
    /// first); off, they come in the pack's order.
    public var shufflesQuestions = false
    /// Questions in a round: a play ends after them, with its score for the high-score
    /// table (an arcade sells a game, not an evening). 0: the whole pack is one round.
    /// Each new round goes on through the dealt pack, so a regular sees new pictures.
    public var roundLength = 10
    /// Seconds for each question before it counts as missed (0: no clock): a player who
    /// walks away, or is stuck, still reaches the end of the round.
    public var secondsPerQuestion = 45.0

    public init() {}
}

public struct GuessPictureModel: Sendable {
    public enum Judgement: Equatable, Sendable {
        /// Some slot is empty.
        case incomplete
        /// Full and right: shown blue while waiting for the next question.
        case right
        /// Full and wrong: shown red until a slot is emptied.
        case wrong
    }

    public enum Phase: Equatable, Sendable {
        case playing
        /// Answered right; the next question comes when `remaining` seconds have passed.
        case advancing(remaining: Double)
        /// Past the last question.
        case finished
    }

    /// The questions in the order they are asked.
    public private(set) var questions: [Question]
    public let rules: GuessPictureRules
    public private(set) var index = 0
    public private(set) var score = 0
    public private(set) var phase: Phase = .playing
    public private(set) var judgement: Judgement = .incomplete
    /// The current question's options in their shuffled order.
    public private(set) var options: [Character] = []
    /// True for an option whose character sits in a slot.
    public private(set) var optionHidden: [Bool] = []
    /// Per answer slot: the option whose character fills it, or nil when empty.
    public private(set) var slots: [Int?] = []
    /// Questions answered right and hints taken in this round (for the results).
    public private(set) var answeredRight = 0
    public private(set) var hintsUsed = 0
    /// Where this round began in `questions`, and how many questions it has.
    public private(set) var roundStart = 0
    public private(set) var roundCount = 0
    /// Seconds left for the current question (`rules.secondsPerQuestion`; infinite without a clock).
    public private(set) var timeLeft = Double.infinity
    private var random: SeededRandom

    /// A game over the questions in order. An empty list starts finished.
    public init(questions: [Question], seed: UInt64, rules: GuessPictureRules = GuessPictureRules()) {
        self.questions = questions
        self.rules = rules
        self.random = SeededRandom(seed: seed)
        if questions.isEmpty {
            phase = .finished
        } else {
            if rules.shufflesQuestions { random.shuffle(&self.questions) }
            beginRound(at: 0)
        }
    }

    // MARK: - Reading the state

    public var question: Question? {
        questions.indices.contains(index) ? questions[index] : nil
    }

    /// "3/10": the question within the round.
    public var progressText: String { "\(min(index - roundStart + 1, roundCount))/\(roundCount)" }

    /// Whether this question's number is the round's last.
    public var isLastOfRound: Bool { index + 1 >= roundStart + roundCount }

    /// Whole seconds left on the clock, for the screen (nil without a clock).
    public var secondsLeftText: Int? {
        timeLeft.isFinite && phase != .finished ? Int(max(0, timeLeft).rounded(.up)) : nil
    }

    /// The character in each slot (nil for an empty one).
    public var slotCharacters: [Character?] {
        slots.map { $0.map { options[$0] } }
    }

    /// "Next" is disabled on the round's last question (and once the round is done).
    public var canGoNext: Bool { phase == .playing && !isLastOfRound }

    public var isFinished: Bool { phase == .finished }

    /// A hint is paid from the score and never makes it negative: it waits until the score
    /// covers its cost (two right answers with the default rules).
    public var canAffordHint: Bool { score >= rules.hintCost }

    /// The hint can be taken now: a question is being played and the score covers it.
    public var canHint: Bool { phase == .playing && question != nil && canAffordHint }

    // MARK: - Steps

    /// Tapping an option puts its character in the first empty slot and hides it.
    @discardableResult
    public mutating func tapOption(_ option: Int) -> [GuessPictureEvent] {
        guard phase == .playing, options.indices.contains(option), !optionHidden[option],
            let slot = slots.firstIndex(where: { $0 == nil })
        else { return [] }
        slots[slot] = option
        optionHidden[option] = true
        var events: [GuessPictureEvent] = [.placed(option: option, slot: slot)]
        judgeIfFull(&events)
        return events
    }

    /// Tapping a filled slot sends its character back to the very option it came from, so a
    /// character that occurs twice returns to the right button.
    @discardableResult
    public mutating func tapSlot(_ slot: Int) -> [GuessPictureEvent] {
        guard phase == .playing, slots.indices.contains(slot), let option = slots[slot] else { return [] }
        slots[slot] = nil
        optionHidden[option] = false
        judgement = .incomplete
        return [.returned(slot: slot, option: option)]
    }

    /// Empties the slots and places the answer's first character, for a price; does nothing
    /// while the score can't pay it (`canHint`).
    @discardableResult
    public mutating func hint() -> [GuessPictureEvent] {
        guard canHint, let question, let first = question.answer.first else { return [] }
        for slot in slots.indices { slots[slot] = nil }
        for option in optionHidden.indices { optionHidden[option] = false }
        judgement = .incomplete
        score -= rules.hintCost
        hintsUsed += 1
        var events: [GuessPictureEvent] = [.hint(score: score)]
        if let option = options.firstIndex(of: first) {
            slots[0] = option
            optionHidden[option] = true
            events.append(.placed(option: option, slot: 0))
            judgeIfFull(&events)
        }
        return events
    }

    /// Skips to the next question; does nothing on the last one.
    @discardableResult
    public mutating func next() -> [GuessPictureEvent] {
        guard canGoNext else { return [] }
        load(index + 1)
        return [.newQuestion(index: index)]
    }

    /// Lets time pass: the question's clock runs down (at zero it is missed and the round
    /// goes on); after a right answer, the next question (or the results) comes when the
    /// delay is over.
    @discardableResult
    public mutating func advance(by seconds: Double) -> [GuessPictureEvent] {
        guard seconds.isFinite, seconds > 0 else { return [] }
        switch phase {
        case .playing:
            guard timeLeft.isFinite else { return [] }
            timeLeft -= seconds
            guard timeLeft <= 1e-9 else { return [] }
            timeLeft = 0
            return [.timeUp] + moveOn()
        case .advancing(let remaining):
            let left = remaining - seconds
            if left > 1e-9 {
                phase = .advancing(remaining: left)
                return []
            }
            return moveOn()
        case .finished:
            return []
        }
    }

    /// A new round with a zero score: the next questions of the dealt pack, dealt anew
    /// once it is used up.
    public mutating func restart() {
        score = 0
        answeredRight = 0
        hintsUsed = 0
        if questions.isEmpty {
            phase = .finished
            return
        }
        var next = roundStart + roundCount
        if next + (rules.roundLength > 0 ? rules.roundLength : questions.count) > questions.count {
            if rules.shufflesQuestions { random.shuffle(&questions) }
            next = 0
        }
        beginRound(at: next)
    }

    /// The next question of the round, or the results after its last.
    private mutating func moveOn() -> [GuessPictureEvent] {
        if !isLastOfRound {
            load(index + 1)
            return [.newQuestion(index: index)]
        }
        phase = .finished
        return [.finished(score: score)]
    }

    private mutating func beginRound(at start: Int) {
        roundStart = start
        let length = rules.roundLength > 0 ? rules.roundLength : questions.count
        roundCount = min(length, questions.count - start)
        load(start)
    }

    private mutating func judgeIfFull(_ events: inout [GuessPictureEvent]) {
        guard let question, !slots.contains(where: { $0 == nil }) else { return }
        if slotCharacters.map({ $0! }) == question.answer {
            judgement = .right
            score += rules.rightAnswerPoints
            answeredRight += 1
            phase = .advancing(remaining: rules.advanceDelay)
            events.append(.right(score: score))
        } else {
            judgement = .wrong
            events.append(.wrong)
        }
    }

    private mutating func load(_ newIndex: Int) {
        index = newIndex
        phase = .playing
        timeLeft = rules.secondsPerQuestion > 0 ? rules.secondsPerQuestion : .infinity
        judgement = .incomplete
        let question = questions[newIndex]
        options = question.options
        random.shuffle(&options)
        optionHidden = Array(repeating: false, count: options.count)
        slots = Array(repeating: nil, count: question.answer.count)
    }
}

/// Plays for the attract mode: picks characters at a human pace, sometimes a wrong one
/// that it then takes back, now and then a hint. Deterministic for a seed; time passed in.
public struct GuessPictureAutoplayer: Sendable {
    public enum Action: Equatable, Sendable {
        case tapOption(Int)
        case tapSlot(Int)
        case hint
        case next
    }

    /// Seconds between actions.
    public var pace: ClosedRange<Double> = 0.6...1.2
    /// Chance that a pick is a wrong character.
    public var mistakeChance = 0.15
    /// Chance of taking a hint at the start of a question.
    public var hintChance = 0.1
    private var random: SeededRandom
    private var untilNext = 1.0
    private var hintDecidedFor = -1

    public init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    /// Lets `seconds` pass; returns the action to take now, if any.
    public mutating func action(after seconds: Double, in game: GuessPictureModel) -> Action? {
        guard game.phase == .playing, let question = game.question else { return nil }
        untilNext -= seconds
        guard untilNext <= 0 else { return nil }
        untilNext = pace.lowerBound + (pace.upperBound - pace.lowerBound) * random.unit()

        if hintDecidedFor != game.index {
            hintDecidedFor = game.index
            if random.unit() < hintChance && game.canHint { return .hint }
        }
        // Take back the first wrong character, if any.
        for (slot, character) in game.slotCharacters.enumerated() {
            if let character, character != question.answer[slot] { return .tapSlot(slot) }
        }
        guard let slot = game.slots.firstIndex(where: { $0 == nil }) else { return nil }
        let visible = game.options.indices.filter { !game.optionHidden[$0] }
        if random.unit() < mistakeChance {
            let wrong = visible.filter { game.options[$0] != question.answer[slot] }
            if !wrong.isEmpty { return .tapOption(wrong[random.below(wrong.count)]) }
        }
        if let right = visible.first(where: { game.options[$0] == question.answer[slot] }) {
            return .tapOption(right)
        }
        if game.canGoNext { return .next }
        return game.canHint ? .hint : nil
    }
}
