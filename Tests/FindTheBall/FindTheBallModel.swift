import GameCore

/// Find the Ball's rules: a ball hides under one of three cups; the player lifts one a
/// round, five rounds a game, and scores a point for each ball found.
public struct FindTheBallModel: Equatable, Sendable {
    public enum Phase: Equatable, Sendable { case playing, over }

    public static let cupCount = 3
    public static let roundCount = 5

    private var random: SeededRandom
    /// The cup the ball is under this round.
    public private(set) var ballCup: Int
    public private(set) var round = 0
    public private(set) var score = 0
    public private(set) var phase = Phase.playing

    public init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        ballCup = random.below(Self.cupCount)
    }

    /// Lifts `cup`: true when the ball was under it. The next round hides it again.
    @discardableResult
    public mutating func lift(_ cup: Int) -> Bool {
        guard phase == .playing, (0..<Self.cupCount).contains(cup) else { return false }
        let found = cup == ballCup
        if found { score += 1 }
        round += 1
        if round == Self.roundCount { phase = .over } else { ballCup = random.below(Self.cupCount) }
        return found
    }
}
