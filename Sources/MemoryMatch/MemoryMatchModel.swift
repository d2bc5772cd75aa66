import GameCore

/// The rules of Memory Match as a value: taps and the clock are passed in, every step
/// returns the events a scene animates, and the deal comes from a seeded generator.

/// The grids on offer: rows x columns, always an even number of cards.
public enum GridSize: String, CaseIterable, Sendable {
    case fourByFour = "4x4"
    case fourByFive = "4x5"
    case sixBySix = "6x6"

    public var rows: Int {
        switch self {
        case .fourByFour, .fourByFive: 4
        case .sixBySix: 6
        }
    }

    public var columns: Int {
        switch self {
        case .fourByFour: 4
        case .fourByFive: 5
        case .sixBySix: 6
        }
    }

    public var cardCount: Int { rows * columns }
    public var pairCount: Int { cardCount / 2 }
}

public struct Card: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        case faceDown, faceUp, matched
    }
    /// Which picture: 0 ..< pairCount, each on exactly two cards.
    public let face: Int
    public internal(set) var state: State
}

public enum MemoryMatchEvent: Equatable, Sendable {
    case flippedUp(Int)
    case flippedDown(Int)
    case matched(Int, Int)
    /// The pair stays up until `deadline`, then `update(now:)` flips it back.
    case mismatched(Int, Int, deadline: Double)
    case won
}

public struct MemoryMatchModel: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        /// Dealt, face down, waiting for PLAY.
        case ready
        case playing
        case won
    }

    /// How long a mismatched pair stays visible, in seconds: long enough to remember both
    /// (the original said "a few seconds"); a tap still hurries it.
    public static let defaultMismatchDelay = 1.5

    public let grid: GridSize
    public let mismatchDelay: Double
    public private(set) var cards: [Card]
    public private(set) var phase = Phase.ready
    /// Pairs turned over (every second card opened counts one move).
    public private(set) var moves = 0
    /// The face-up card waiting for its partner.
    public private(set) var openCard: Int?
    /// The pair showing after a mismatch, and when it turns back.
    public private(set) var mismatch: Mismatch?

    public struct Mismatch: Equatable, Sendable {
        public let first: Int
        public let second: Int
        public let deadline: Double
    }

    private var startTime: Double?
    private var endTime: Double?
    private var pausedAt: Double?
    private var rng: SeededRandom

    public init(grid: GridSize = .fourByFour, seed: UInt64,
                mismatchDelay: Double = MemoryMatchModel.defaultMismatchDelay)
    {
        self.grid = grid
        self.mismatchDelay = max(0, mismatchDelay)
        rng = SeededRandom(seed: seed)
        cards = []
        deal()
    }

    // MARK: Reading

    public var matchedPairs: Int { cards.reduce(0) { $0 + ($1.state == .matched ? 1 : 0) } / 2 }

    /// Seconds of play: zero before PLAY, frozen once won.
    public func elapsed(now: Double) -> Double {
        guard let start = startTime else { return 0 }
        return max(0, (endTime ?? pausedAt ?? now) - start)
    }

    // MARK: Steps

    /// The PLAY button: reveals the grid and starts the clock.
    public mutating func play(now: Double) {
        guard phase == .ready else { return }
        phase = .playing
        startTime = now
    }

    /// A tap on card `index`. A tap while a mismatch is showing turns that pair back at once
    /// (fast players are never made to wait); then a face-down card opens. Taps on open
    /// cards - including either card of the mismatch - open nothing. Out-of-range indices
    /// and taps outside play are ignored.
    @discardableResult
    public mutating func tap(_ index: Int, now: Double) -> [MemoryMatchEvent] {
        guard phase == .playing, cards.indices.contains(index) else { return [] }
        resume(now: now)
        var events: [MemoryMatchEvent] = []
        if let shown = mismatch {
            events += turnBack(shown)
            if index == shown.first || index == shown.second { return events }
        }
        guard cards[index].state == .faceDown else { return events }
        cards[index].state = .faceUp
        events.append(.flippedUp(index))
        guard let first = openCard else {
            openCard = index
            return events
        }
        openCard = nil
        moves += 1
        if cards[first].face == cards[index].face {
            cards[first].state = .matched
            cards[index].state = .matched
            events.append(.matched(first, index))
            if cards.allSatisfy({ $0.state == .matched }) {
                phase = .won
                endTime = now
                events.append(.won)
            }
        } else {
            let deadline = now + mismatchDelay
            mismatch = Mismatch(first: first, second: index, deadline: deadline)
            events.append(.mismatched(first, index, deadline: deadline))
        }
        return events
    }

    /// Advances the clock: a mismatch whose moment has passed flips back.
    @discardableResult
    public mutating func update(now: Double) -> [MemoryMatchEvent] {
        guard pausedAt == nil, let shown = mismatch, now >= shown.deadline else { return [] }
        return turnBack(shown)
    }

    /// The player left (home, idle): the clock stops until `resume`.
    public mutating func pause(now: Double) {
        guard phase == .playing, pausedAt == nil else { return }
        pausedAt = now
    }

    /// Back from a pause: the clock and a showing mismatch go on from where they stopped.
    public mutating func resume(now: Double) {
        guard let paused = pausedAt else { return }
        pausedAt = nil
        let away = max(0, now - paused)
        startTime = startTime.map { $0 + away }
        if let shown = mismatch {
            mismatch = Mismatch(first: shown.first, second: shown.second, deadline: shown.deadline + away)
        }
    }

    public var isPaused: Bool { pausedAt != nil }

    /// A new deal of the same grid, face down, waiting for PLAY.
    public mutating func restart() {
        deal()
    }

    private mutating func turnBack(_ shown: Mismatch) -> [MemoryMatchEvent] {
        mismatch = nil
        cards[shown.first].state = .faceDown
        cards[shown.second].state = .faceDown
        return [.flippedDown(shown.first), .flippedDown(shown.second)]
    }

    private mutating func deal() {
        var faces = (0..<grid.cardCount).map { $0 / 2 }
        rng.shuffle(&faces)
        cards = faces.map { Card(face: $0, state: .faceDown) }
        phase = .ready
        moves = 0
        openCard = nil
        mismatch = nil
        startTime = nil
        endTime = nil
        pausedAt = nil
    }
}
