import Foundation
import GameCore
import XCTest

/// The one generator every game deals with: uniform, replayable, and its shuffle fair.
/// Chi-square thresholds are p = 0.001 critical values, so a fair generator fails about once
/// in a thousand seeds; the seeds here are fixed, so a pass stays a pass.
final class SeededRandomTests: XCTestCase {
    private func chiSquare(_ counts: [Int], expected: Double) -> Double {
        counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
    }

    func testUniformInRangeAndReplayable() {
        var random = SeededRandom(seed: 99)
        var counts = [Int](repeating: 0, count: 7)
        for _ in 0..<70_000 { counts[random.below(7)] += 1 }
        XCTAssertLessThan(chiSquare(counts, expected: 10_000), 22.5, "df 6")
        for _ in 0..<1000 {
            let u = random.unit()
            XCTAssertTrue(u >= 0 && u < 1)
            let d = random.double(in: -2...3)
            XCTAssertTrue(d >= -2 && d <= 3)
        }
        var a = SeededRandom(seed: 1)
        var b = SeededRandom(seed: 1)
        XCTAssertEqual((0..<10).map { _ in a.next() }, (0..<10).map { _ in b.next() })
        XCTAssertEqual(a, b, "a generator is a plain value: copies compare")
    }

    /// All 24 orders of 4 items about equally often (df 23: 49.7).
    func testShuffleReachesEveryOrderEvenly() {
        var random = SeededRandom(seed: 2024)
        var orders: [[Int]: Int] = [:]
        let trials = 48_000
        for _ in 0..<trials {
            var items = [0, 1, 2, 3]
            random.shuffle(&items)
            orders[items, default: 0] += 1
        }
        XCTAssertEqual(orders.count, 24)
        XCTAssertLessThan(chiSquare(Array(orders.values), expected: Double(trials) / 24), 49.7)
    }

    /// The (item, position) table of 16-item shuffles: 225 degrees of freedom, below the
    /// p = 0.001 upper value (about 304) and above the lower one (about 162: not too perfect).
    func testShufflePutsEveryItemEverywhere() {
        var random = SeededRandom(seed: 99)
        let n = 16, trials = 32_000
        var table = [Int](repeating: 0, count: n * n)
        for _ in 0..<trials {
            var items = Array(0..<n)
            random.shuffle(&items)
            for (position, item) in items.enumerated() { table[item * n + position] += 1 }
        }
        let value = chiSquare(table, expected: Double(trials) / Double(n))
        XCTAssertLessThan(value, 304)
        XCTAssertGreaterThan(value, 162)
    }

    /// The same test catches a biased shuffle: it can fail.
    func testTheTestCatchesABiasedShuffle() {
        var biased = [0, 0, 0]
        var random = SeededRandom(seed: 5)
        for _ in 0..<30_000 {
            var items = [0, 1, 2]
            // One pass of random adjacent swaps: a common non-uniform "shuffle".
            for i in 0..<2 where random.below(2) == 0 { items.swapAt(i, i + 1) }
            biased[items.firstIndex(of: 0)!] += 1
        }
        XCTAssertGreaterThan(chiSquare(biased, expected: 10_000), 13.8, "df 2")
    }
}
