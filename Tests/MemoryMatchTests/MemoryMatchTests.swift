import GameCore
import XCTest
@testable import MemoryMatch

/// Indices of the two cards showing `face`.
private func pair(_ face: Int, in model: MemoryMatchModel) -> (Int, Int) {
    let indices = model.cards.indices.filter { model.cards[$0].face == face }
    return (indices[0], indices[1])
}

/// Two cards with different faces.
private func mismatchedPair(in model: MemoryMatchModel) -> (Int, Int) {
    let other = model.cards.indices.first { model.cards[$0].face != model.cards[0].face }!
    return (0, other)
}

private func started(_ grid: GridSize = .fourByFour, seed: UInt64 = 1) -> MemoryMatchModel {
    var model = MemoryMatchModel(grid: grid, seed: seed)
    model.play(now: 100)
    return model
}

final class MemoryMatchDealTests: XCTestCase {
    func testEveryGridHoldsPairs() {
        for grid in GridSize.allCases {
            let model = MemoryMatchModel(grid: grid, seed: 5)
            XCTAssertEqual(model.cards.count, grid.rows * grid.columns)
            var counts: [Int: Int] = [:]
            for card in model.cards { counts[card.face, default: 0] += 1 }
            XCTAssertEqual(counts.count, grid.pairCount, "\(grid)")
            XCTAssertTrue(counts.values.allSatisfy { $0 == 2 }, "\(grid)")
            XCTAssertEqual(Set(counts.keys), Set(0..<grid.pairCount))
            XCTAssertTrue(model.cards.allSatisfy { $0.state == .faceDown })
            XCTAssertEqual(model.phase, .ready)
        }
        XCTAssertEqual(GridSize.fourByFour.pairCount, 8)
        XCTAssertEqual(GridSize.fourByFive.pairCount, 10)
        XCTAssertEqual(GridSize.sixBySix.pairCount, 18)
    }

    /// The deal itself: the face on the first card is uniform over the 8 faces.
    func testDealIsUniformPerPosition() {
        var counts = [Int](repeating: 0, count: 8)
        var model = MemoryMatchModel(grid: .fourByFour, seed: 2)
        let trials = 8_000
        for _ in 0..<trials {
            counts[model.cards[0].face] += 1
            model.restart()
        }
        let expected = Double(trials) / 8
        let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        XCTAssertLessThan(chiSquare, 24.3)  // df 7, p = 0.001
    }

    func testSameSeedSameDeal() {
        XCTAssertEqual(MemoryMatchModel(seed: 3).cards, MemoryMatchModel(seed: 3).cards)
        XCTAssertNotEqual(MemoryMatchModel(seed: 3).cards, MemoryMatchModel(seed: 4).cards)
    }
}

final class MemoryMatchPlayTests: XCTestCase {
    func testTapsWaitForPlay() {
        var model = MemoryMatchModel(seed: 1)
        XCTAssertEqual(model.tap(0, now: 0), [])
        XCTAssertEqual(model.cards[0].state, .faceDown)
        XCTAssertEqual(model.elapsed(now: 50), 0)
        model.play(now: 10)
        XCTAssertEqual(model.phase, .playing)
        XCTAssertEqual(model.tap(0, now: 11), [.flippedUp(0)])
        XCTAssertEqual(model.elapsed(now: 12.5), 2.5)
    }

    func testMatchKeepsBothOpen() {
        var model = started()
        let (a, b) = pair(3, in: model)
        XCTAssertEqual(model.tap(a, now: 101), [.flippedUp(a)])
        XCTAssertEqual(model.openCard, a)
        XCTAssertEqual(model.tap(b, now: 102), [.flippedUp(b), .matched(a, b)])
        XCTAssertEqual(model.cards[a].state, .matched)
        XCTAssertEqual(model.cards[b].state, .matched)
        XCTAssertNil(model.openCard)
        XCTAssertEqual(model.moves, 1)
        XCTAssertEqual(model.matchedPairs, 1)
        XCTAssertEqual(model.update(now: 1000), [], "a match never turns back")
        XCTAssertEqual(model.cards[a].state, .matched)
    }

    func testMismatchShowsUntilTheDeadlineThenFlipsBack() {
        var model = started()
        let (a, b) = mismatchedPair(in: model)
        model.tap(a, now: 101)
        let events = model.tap(b, now: 102)
        let deadline = 102 + MemoryMatchModel.defaultMismatchDelay
        XCTAssertEqual(events, [.flippedUp(b), .mismatched(a, b, deadline: deadline)])
        XCTAssertEqual(model.moves, 1)
        XCTAssertEqual(model.mismatch, MemoryMatchModel.Mismatch(first: a, second: b, deadline: deadline))
        XCTAssertEqual(model.update(now: deadline - 0.01), [])
        XCTAssertEqual(model.cards[a].state, .faceUp)
        XCTAssertEqual(model.cards[b].state, .faceUp)
        XCTAssertEqual(model.update(now: deadline), [.flippedDown(a), .flippedDown(b)])
        XCTAssertEqual(model.cards[a].state, .faceDown)
        XCTAssertEqual(model.cards[b].state, .faceDown)
        XCTAssertNil(model.mismatch)
        XCTAssertEqual(model.update(now: deadline + 1), [])
    }

    func testThirdTapFlipsTheMismatchBackAndOpensTheNewCard() {
        var model = started()
        let (a, b) = mismatchedPair(in: model)
        let c = model.cards.indices.first { $0 != a && $0 != b }!
        model.tap(a, now: 101)
        model.tap(b, now: 101.2)
        let events = model.tap(c, now: 101.3)
        XCTAssertEqual(events, [.flippedDown(a), .flippedDown(b), .flippedUp(c)])
        XCTAssertEqual(model.cards[a].state, .faceDown)
        XCTAssertEqual(model.cards[b].state, .faceDown)
        XCTAssertEqual(model.cards[c].state, .faceUp)
        XCTAssertEqual(model.openCard, c, "the new card is the first of the next pair")
        XCTAssertNil(model.mismatch)
        XCTAssertEqual(model.update(now: 200), [], "nothing left to flip back")
        XCTAssertEqual(model.moves, 1)
    }

    func testTapOnTheShowingMismatchOnlyHurriesItBack() {
        var model = started()
        let (a, b) = mismatchedPair(in: model)
        model.tap(a, now: 101)
        model.tap(b, now: 101.2)
        XCTAssertEqual(model.tap(b, now: 101.3), [.flippedDown(a), .flippedDown(b)])
        XCTAssertNil(model.openCard)
        XCTAssertTrue(model.cards.allSatisfy { $0.state == .faceDown })
    }

    func testTapOnAnOpenCardDoesNothing() {
        var model = started()
        let (a, b) = pair(0, in: model)
        model.tap(a, now: 101)
        XCTAssertEqual(model.tap(a, now: 102), [], "the open first card")
        XCTAssertEqual(model.openCard, a)
        XCTAssertEqual(model.moves, 0)
        model.tap(b, now: 103)
        let before = model
        XCTAssertEqual(model.tap(a, now: 104), [], "a matched card")
        XCTAssertEqual(model.tap(b, now: 104), [])
        XCTAssertEqual(model, before)
        XCTAssertEqual(model.tap(-1, now: 104), [], "out of range")
        XCTAssertEqual(model.tap(16, now: 104), [])
    }

    func testWholeGameEndsWonWithTimeFrozen() {
        var model = started(.fourByFive, seed: 8)
        var now = 100.0
        for face in 0..<GridSize.fourByFive.pairCount {
            let (a, b) = pair(face, in: model)
            now += 1
            model.tap(a, now: now)
            now += 1
            let events = model.tap(b, now: now)
            if face == GridSize.fourByFive.pairCount - 1 {
                XCTAssertEqual(events, [.flippedUp(b), .matched(a, b), .won])
            } else {
                XCTAssertFalse(events.contains(.won))
            }
        }
        XCTAssertEqual(model.phase, .won)
        XCTAssertEqual(model.moves, 10)
        XCTAssertEqual(model.matchedPairs, 10)
        XCTAssertEqual(model.elapsed(now: now), 20)
        XCTAssertEqual(model.elapsed(now: now + 60), 20, "the clock stops at the end")
        XCTAssertEqual(model.tap(0, now: now + 1), [])
    }

    func testPauseStopsTheClockAndTheMismatch() {
        var model = started()
        let (a, b) = mismatchedPair(in: model)
        model.tap(a, now: 101)
        model.tap(b, now: 102)
        model.pause(now: 102.5)
        XCTAssertTrue(model.isPaused)
        XCTAssertEqual(model.elapsed(now: 150), 2.5)
        XCTAssertEqual(model.update(now: 150), [], "nothing turns while away")
        model.resume(now: 200)
        XCTAssertEqual(model.elapsed(now: 200), 2.5)
        let deadline = 102 + MemoryMatchModel.defaultMismatchDelay + 97.5
        XCTAssertEqual(model.mismatch?.deadline ?? 0, deadline, accuracy: 1e-9)
        XCTAssertEqual(model.update(now: deadline - 0.1), [])
        XCTAssertEqual(model.update(now: deadline).count, 2)
    }

    func testRestartDealsAgain() {
        var model = started(seed: 4)
        let first = model.cards.map(\.face)
        let (a, b) = pair(1, in: model)
        model.tap(a, now: 101)
        model.tap(b, now: 102)
        model.tap(model.cards.indices.first { model.cards[$0].state == .faceDown }!, now: 103)
        XCTAssertNotNil(model.openCard)
        model.restart()
        XCTAssertEqual(model.phase, .ready)
        XCTAssertEqual(model.moves, 0)
        XCTAssertNil(model.openCard)
        XCTAssertNil(model.mismatch)
        XCTAssertEqual(model.elapsed(now: 500), 0)
        XCTAssertTrue(model.cards.allSatisfy { $0.state == .faceDown })
        XCTAssertNotEqual(model.cards.map(\.face), first, "a new deal")
        model.play(now: 600)
        XCTAssertEqual(model.elapsed(now: 601), 1)
    }
}

final class MemoryMatchAutoplayerTests: XCTestCase {
    /// Plays a whole game the way the attract mode does (waiting out mismatches); returns moves.
    private func autoplay(_ grid: GridSize, seed: UInt64, capacity: Int, recall: Double) -> Int {
        var model = MemoryMatchModel(grid: grid, seed: seed)
        var player = MemoryMatchAutoplayer(seed: seed &+ 1000, capacity: capacity, recall: recall)
        var now = 0.0
        model.play(now: now)
        for _ in 0..<2000 {
            now += 0.5
            model.update(now: now)
            if model.mismatch != nil { continue }
            guard let index = player.nextTap(in: model) else { break }
            XCTAssertEqual(model.cards[index].state, .faceDown, "the autoplayer taps closed cards")
            model.tap(index, now: now)
            player.observe(model)
        }
        XCTAssertEqual(model.phase, .won)
        return model.moves
    }

    func testFinishesEveryGrid() {
        for grid in GridSize.allCases {
            let moves = autoplay(grid, seed: 21, capacity: 6, recall: 0.8)
            XCTAssertGreaterThanOrEqual(moves, grid.pairCount)
        }
    }

    func testImperfectMemoryTakesMoreMovesThanPerfect() {
        var perfect = 0, imperfect = 0
        for seed in 0..<20 as Range<UInt64> {
            perfect += autoplay(.fourByFour, seed: seed, capacity: 16, recall: 1)
            imperfect += autoplay(.fourByFour, seed: seed, capacity: 4, recall: 0.7)
        }
        XCTAssertLessThan(perfect, imperfect)
        // Perfect memory on 8 pairs needs about 12 moves on average; forgetting costs more.
        XCTAssertLessThan(Double(perfect) / 20, 16)
        XCTAssertGreaterThan(Double(imperfect) / 20, Double(perfect) / 20 + 2)
    }

    func testIdleOutsidePlay() {
        var player = MemoryMatchAutoplayer(seed: 1)
        XCTAssertNil(player.nextTap(in: MemoryMatchModel(seed: 1)))
    }
}
