import XCTest
@testable import BeatZombies

/// How long games last, played by the autoplayer at two skill levels over many seeds, in
/// simulated seconds: the difficulty is judged by the games it makes, not by its constants.
final class DifficultyTests: XCTestCase {
    /// One game on an 800x480 screen's lawn, to the full house; its length in seconds and score.
    static func play(_ difficulty: BeatZombiesDifficulty, skill: ZombieAutoplayer.Skill, seed: UInt64,
                     limit: Double = 1200) -> (seconds: Double, score: Int) {
        var game = BeatZombiesModel(lawnWidth: 700, lawnHeight: 416, seed: seed, rules: difficulty.rules)
        var player = ZombieAutoplayer(seed: seed &* 31 &+ 7, skill: skill)
        let frame = 1.0 / 30
        var seconds = 0.0
        while game.phase == .playing && seconds < limit {
            for point in player.taps(after: frame, in: game) { game.tap(at: point) }
            game.advance(by: frame)
            seconds += frame
        }
        return (seconds, game.score)
    }

    /// The median game length (seconds) and score over `seeds`.
    static func median(_ difficulty: BeatZombiesDifficulty, skill: ZombieAutoplayer.Skill,
                       seeds: ClosedRange<UInt64> = 1...15) -> (seconds: Double, score: Int) {
        let games = seeds.map { play(difficulty, skill: skill, seed: $0) }
        let seconds = games.map(\.seconds).sorted()
        let scores = games.map(\.score).sorted()
        return (seconds[seconds.count / 2], scores[scores.count / 2])
    }

    func testArcadeGamesLastTwoToFourMinutesForAGoodPlayerAndAboutOneForAChild() {
        let good = Self.median(.arcade, skill: .good)
        let child = Self.median(.arcade, skill: .child)
        print("arcade: good player \(good), child \(child)")
        XCTAssertTrue((120...240).contains(good.seconds), "a good player's game: \(good.seconds) s")
        XCTAssertTrue((45...90).contains(child.seconds), "a child's game: \(child.seconds) s")
    }

    func testEveryDifficultyEndsAndGentleLastsLongest() {
        var child: [BeatZombiesDifficulty: Double] = [:]
        var good: [BeatZombiesDifficulty: Double] = [:]
        for difficulty in BeatZombiesDifficulty.allCases {
            child[difficulty] = Self.median(difficulty, skill: .child).seconds
            good[difficulty] = Self.median(difficulty, skill: .good).seconds
            print("\(difficulty): good player \(good[difficulty]!) s, child \(child[difficulty]!) s")
            XCTAssertLessThan(good[difficulty]!, 1200, "\(difficulty): a good player's game ends")
            XCTAssertLessThan(child[difficulty]!, 1200, "\(difficulty): a child's game ends")
        }
        // Skill lasts longer where time drives the speed; in classic hits do, so it doesn't.
        XCTAssertGreaterThan(good[.arcade]!, child[.arcade]! * 1.5)
        XCTAssertGreaterThan(good[.gentle]!, child[.gentle]! * 1.5)
        XCTAssertGreaterThan(child[.gentle]!, child[.arcade]! * 1.5, "gentle gives a child more time")
        XCTAssertGreaterThan(good[.gentle]!, good[.arcade]!)
    }

    /// In arcade, as in the original, every hit speeds the zombies up a little; time does too.
    func testArcadeSpeedsUpWithHitsAndWithTime() {
        let rules = BeatZombiesDifficulty.arcade.rules
        var idle = BeatZombiesModel(lawnWidth: 700, lawnHeight: 416, seed: 5, rules: rules)
        var hitting = idle
        var player = ZombieAutoplayer(seed: 6, skill: .good)
        let start = idle.referenceSpeed
        for _ in 0..<600 {  // 30 s
            for point in player.taps(after: 0.05, in: hitting) { hitting.tap(at: point) }
            hitting.advance(by: 0.05)
            idle.advance(by: 0.05)
        }
        XCTAssertGreaterThan(hitting.score, 10)
        XCTAssertGreaterThan(idle.referenceSpeed, start, "time alone speeds them")
        XCTAssertEqual(hitting.referenceSpeed - idle.referenceSpeed, Double(hitting.score) * rules.speedPerHit, accuracy: 1e-9,
                       "each hit adds its share")
    }

    /// A zombie is on the lawn within a second of the start, in play and in the attract mode.
    func testAZombieStepsOnTheLawnWithinASecond() {
        for difficulty in BeatZombiesDifficulty.allCases {
            for seed: UInt64 in 1...20 {
                var game = BeatZombiesModel(lawnWidth: 700, lawnHeight: 416, seed: seed, rules: difficulty.rules)
                game.advance(by: 1)
                XCTAssertTrue(game.zombies.contains { game.isOnLawn($0) }, "\(difficulty), seed \(seed)")
                game.restart()
                XCTAssertTrue(game.zombies.contains { game.isOnLawn($0) }, "after a restart: \(difficulty), seed \(seed)")
            }
        }
    }

    /// Faster and faster: the crossing time only shrinks during a game.
    func testTheZombiesOnlyGetFaster() {
        var game = BeatZombiesModel(lawnWidth: 700, lawnHeight: 416, seed: 3, rules: BeatZombiesDifficulty.arcade.rules)
        var player = ZombieAutoplayer(seed: 4, skill: .good)
        var crossing = game.crossingTime
        XCTAssertEqual(crossing, 37.5, accuracy: 1e-9, "the original's start: 37.5 s across")
        while game.phase == .playing {
            for point in player.taps(after: 0.05, in: game) { game.tap(at: point) }
            game.advance(by: 0.05)
            XCTAssertLessThanOrEqual(game.crossingTime, crossing + 1e-9)
            crossing = game.crossingTime
        }
        XCTAssertLessThan(crossing, 6, "by the end a crossing takes a few seconds")
    }
}
