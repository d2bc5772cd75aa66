import GameCore

/// Plays Memory Match for the attract mode like a person would: it only knows the faces it
/// has seen, remembers the last few of them, and sometimes fails to recall one, so games
/// take a believable number of moves instead of a perfect or a random count.
public struct MemoryMatchAutoplayer: Equatable, Sendable {
    /// Cards remembered at once; seeing another forgets the oldest.
    public let capacity: Int
    /// The chance of recalling a remembered card when it would help.
    public let recall: Double

    /// Seen cards, oldest first: (index, face).
    private var memory: [Seen] = []
    private var rng: SeededRandom

    private struct Seen: Equatable, Sendable {
        var index: Int
        var face: Int
    }

    public init(seed: UInt64, capacity: Int = 6, recall: Double = 0.8) {
        self.capacity = max(0, capacity)
        self.recall = min(1, max(0, recall))
        rng = SeededRandom(seed: seed)
    }

    /// Looks at the board: every face-up card is seen; matched cards need no memory.
    /// Call after each tap so a mismatch is seen before it turns back.
    public mutating func observe(_ model: MemoryMatchModel) {
        memory.removeAll { model.cards[$0.index].state == .matched }
        for (index, card) in model.cards.enumerated() where card.state == .faceUp {
            memory.removeAll { $0.index == index }
            memory.append(Seen(index: index, face: card.face))
        }
        if memory.count > capacity { memory.removeFirst(memory.count - capacity) }
    }

    /// The card to tap next, or nil when the game is not being played.
    public mutating func nextTap(in model: MemoryMatchModel) -> Int? {
        guard model.phase == .playing else { return nil }
        observe(model)
        let faceDown = model.cards.indices.filter { model.cards[$0].state == .faceDown }
        guard !faceDown.isEmpty else { return nil }
        let remembered = memory.filter { model.cards[$0.index].state == .faceDown }

        if let open = model.openCard {
            let face = model.cards[open].face
            if let partner = remembered.first(where: { $0.face == face }), recalls() {
                return partner.index
            }
        } else if let pair = knownPair(in: remembered), recalls() {
            return pair
        }
        // Explore: a card not in memory if there is one, else any face-down card.
        let known = Set(remembered.map(\.index))
        let unseen = faceDown.filter { !known.contains($0) }
        let choices = unseen.isEmpty ? faceDown : unseen
        return choices[Int.random(in: 0..<choices.count, using: &rng)]
    }

    /// A face-down card whose partner is also remembered face down.
    private func knownPair(in remembered: [Seen]) -> Int? {
        for (i, a) in remembered.enumerated() {
            if remembered[(i + 1)...].contains(where: { $0.face == a.face }) { return a.index }
        }
        return nil
    }

    private mutating func recalls() -> Bool {
        Double.random(in: 0..<1, using: &rng) < recall
    }
}
