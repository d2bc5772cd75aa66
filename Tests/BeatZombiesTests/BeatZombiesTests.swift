import GameCore
import XCTest
@testable import BeatZombies

final class BeatZombiesModelTests: XCTestCase {
    /// Waits until a walking zombie is fully on the lawn and taps its centre; returns the events.
    @discardableResult
    private func beatOne(_ game: inout BeatZombiesModel, file: StaticString = #filePath, line: UInt = #line)
        -> [BeatZombiesEvent]
    {
        for _ in 0..<20_000 {
            if let zombie = game.zombies.first(where: {
                !$0.isBeaten && game.drawFrame(of: $0).x >= 0 && game.drawFrame(of: $0).maxX <= game.lawnWidth
            }) {
                let rect = game.drawFrame(of: zombie)
                let events = game.tap(at: LawnPoint(x: rect.midX, y: rect.midY))
                XCTAssertTrue(events.contains { if case .hit = $0 { return true } else { return false } },
                              "a tap on a zombie's centre beats it", file: file, line: line)
                return events
            }
            game.advance(by: 0.05)
        }
        XCTFail("no zombie ever reached the lawn", file: file, line: line)
        return []
    }

    private func assertSpawnedRight(_ game: BeatZombiesModel, _ zombie: Zombie, file: StaticString = #filePath, line: UInt = #line) {
        // A new lawn's wave starts at the edge, its first zombie already stepping in;
        // respawns land beyond it.
        let edge = game.lawnWidth - (zombie.generation == 0 ? zombie.kind.width : 0)
        XCTAssertGreaterThanOrEqual(zombie.position.x, edge, "spawns beyond the right edge", file: file, line: line)
        XCTAssertLessThanOrEqual(zombie.position.x, game.lawnWidth * (1 + game.rules.spawnDepth), file: file, line: line)
        XCTAssertGreaterThanOrEqual(zombie.position.y, 0, "fully on the lawn (top)", file: file, line: line)
        XCTAssertLessThanOrEqual(zombie.position.y + zombie.kind.height, game.lawnHeight, "fully on the lawn (bottom)",
                                 file: file, line: line)
    }

    func testKindsKeepTheOriginalSizesAndFrames() {
        let kinds = ZombieKind.all.map { "\(Int($0.width))x\(Int($0.height))/\($0.frameCount)" }
        XCTAssertEqual(kinds, ["83x72/31", "174x109/25", "83x72/12", "83x72/15"])
    }

    func testFifteenZombiesSpawnBeyondTheRightEdgeFullyOnTheLawn() {
        for seed in UInt64(1)...50 {
            let game = BeatZombiesModel(lawnWidth: 700, lawnHeight: 380, seed: seed)
            XCTAssertEqual(game.zombies.count, 15)
            XCTAssertEqual(Set(game.zombies.map(\.id)).count, 15)
            for zombie in game.zombies { assertSpawnedRight(game, zombie) }
        }
    }

    func testRespawnsLandInBoundsToo() {
        var game = BeatZombiesModel(lawnWidth: 500, lawnHeight: 300, seed: 7)
        var kindsSeen = Set<Int>()
        for _ in 0..<60 {
            let events = beatOne(&game)
            guard case .hit(let id, _)? = events.first else { return XCTFail("no hit") }
            let generation = game.zombies[id].generation
            game.advance(by: 0.5)
            let zombie = game.zombies[id]
            XCTAssertEqual(zombie.generation, generation + 1, "respawned after the beaten animation")
            XCTAssertFalse(zombie.isBeaten)
            assertSpawnedRight(game, zombie)
            kindsSeen.insert(zombie.kind.index)
        }
        XCTAssertEqual(kindsSeen, [0, 1, 2, 3], "all four kinds turn up")
    }

    func testAZombieTallerThanTheLawnSitsAtTheTop() {
        let game = BeatZombiesModel(lawnWidth: 400, lawnHeight: 60, seed: 3)
        for zombie in game.zombies { XCTAssertEqual(zombie.position.y, 0) }
    }

    func testSpeedIsHalfAPointPerTickOnThePhoneLawnAndScalesWithWidth() {
        for width in [375.0, 750.0, 1500.0] {
            var game = BeatZombiesModel(lawnWidth: width, lawnHeight: 400, seed: 11)
            let before = game.zombies.map(\.position.x)
            game.advance(by: 0.05)
            let expected = 0.5 * width / 375
            XCTAssertEqual(game.speedPerTick, expected, accuracy: 1e-12)
            for (zombie, x) in zip(game.zombies, before) {
                XCTAssertEqual(x - zombie.position.x, expected, accuracy: 1e-9)
            }
            // Crossing the lawn takes the same time on every width: 375 pt / 10 pt/s = 37.5 s.
            XCTAssertEqual(width / game.speedPerSecond, 37.5, accuracy: 1e-9)
        }
    }

    func testFixedStepsMakeTheOutcomeIndependentOfFrameTimes() {
        var steady = BeatZombiesModel(lawnWidth: 640, lawnHeight: 360, seed: 42)
        var jerky = steady
        var oneGulp = steady
        for _ in 0..<1200 { steady.advance(by: 0.05) }  // 60 s
        var random = SeededRandom(seed: 9)
        var total = 0.0
        while total < 60 - 1e-9 {
            let dt = min(60 - total, random.double(in: 0.001...0.4))
            jerky.advance(by: dt)
            total += dt
        }
        oneGulp.advance(by: 60)
        for other in [jerky, oneGulp] {
            XCTAssertEqual(other.ticks, steady.ticks)
            XCTAssertEqual(other.inHouse, steady.inHouse)
            XCTAssertEqual(other.zombies.map(\.generation), steady.zombies.map(\.generation))
            for (a, b) in zip(other.zombies, steady.zombies) {
                XCTAssertEqual(a.position.x, b.position.x, accuracy: 1e-6)
                XCTAssertEqual(a.position.y, b.position.y)
            }
        }
    }

    func testTheSameSeedPlaysTheSameGame() {
        let a = BeatZombiesModel(lawnWidth: 640, lawnHeight: 360, seed: 5)
        let b = BeatZombiesModel(lawnWidth: 640, lawnHeight: 360, seed: 5)
        let c = BeatZombiesModel(lawnWidth: 640, lawnHeight: 360, seed: 6)
        XCTAssertEqual(a.zombies, b.zombies)
        XCTAssertNotEqual(a.zombies, c.zombies)
    }

    func testATapScoresAndPlaysTheGrowThenShrinkAnimation() {
        var game = BeatZombiesModel(lawnWidth: 600, lawnHeight: 400, seed: 1)
        let events = beatOne(&game)
        guard case .hit(let id, let score)? = events.first else { return XCTFail("no hit") }
        XCTAssertEqual(score, 1)
        XCTAssertEqual(game.score, 1)
        let x = game.zombies[id].position.x
        XCTAssertEqual(game.scale(of: game.zombies[id]), 1)
        game.advance(by: 0.25)
        XCTAssertEqual(game.scale(of: game.zombies[id]), 2, accuracy: 1e-9, "2x after 0.25 s")
        XCTAssertEqual(game.zombies[id].position.x, x, "a beaten zombie stops walking")
        game.advance(by: 0.20)
        XCTAssertEqual(game.scale(of: game.zombies[id]), 2 - 1.5 * 0.8, accuracy: 1e-9, "shrinking towards 0.5x")
        game.advance(by: 0.05)
        XCTAssertFalse(game.zombies[id].isBeaten, "respawned after 0.5 s")
        XCTAssertEqual(game.scale(of: game.zombies[id]), 1)
    }

    func testAZombieBeingBeatenCannotScoreTwice() {
        var rules = BeatZombiesRules()
        rules.zombieCount = 1
        var game = BeatZombiesModel(lawnWidth: 600, lawnHeight: 400, seed: 2, rules: rules)
        beatOne(&game)
        let rect = game.drawFrame(of: game.zombies[0])
        for _ in 0..<5 {
            XCTAssertEqual(game.tap(at: LawnPoint(x: rect.midX, y: rect.midY)), [])
            game.advance(by: 0.05)
        }
        XCTAssertEqual(game.score, 1)
    }

    func testMissesAndTapsOffTheLawnDoNothing() {
        var game = BeatZombiesModel(lawnWidth: 600, lawnHeight: 400, seed: 3)
        // At the start every zombie is beyond the right edge: nothing on the lawn to hit.
        XCTAssertEqual(game.tap(at: LawnPoint(x: 300, y: 200)), [])
        XCTAssertEqual(game.tap(at: LawnPoint(x: -5, y: 10)), [])
        XCTAssertEqual(game.tap(at: LawnPoint(x: 650, y: 10)), [])
        XCTAssertEqual(game.score, 0)
    }

    func testSmallZombiesHaveFingerSizedHitBoxes() {
        var rules = BeatZombiesRules()
        rules.zombieCount = 1
        rules.zombieScale = 0.25  // 21x18 pt sprites
        var game = BeatZombiesModel(lawnWidth: 600, lawnHeight: 400, seed: 4, rules: rules)
        while game.drawFrame(of: game.zombies[0]).x > 300 { game.advance(by: 0.05) }
        let zombie = game.zombies[0]
        let sprite = game.drawFrame(of: zombie)
        let box = game.hitBox(of: zombie)
        XCTAssertEqual(box.width, 48)
        XCTAssertEqual(box.height, 48)
        XCTAssertEqual(box.midX, sprite.midX, accuracy: 1e-9)
        // Beside the sprite but inside the finger-sized box: a hit.
        let beside = LawnPoint(x: sprite.maxX + 8, y: sprite.midY)
        XCTAssertFalse(sprite.contains(beside))
        XCTAssertEqual(game.tap(at: beside).first, .hit(zombie: 0, score: 1))
        // A big zombie's box is just its sprite.
        let big = BeatZombiesModel(lawnWidth: 600, lawnHeight: 400, seed: 4).zombies[0]
        let plain = BeatZombiesModel(lawnWidth: 600, lawnHeight: 400, seed: 4)
        XCTAssertEqual(plain.hitBox(of: big), plain.frame(of: big))
    }

    func testSeveralFingersBeatSeveralZombiesAtOnce() {
        var game = BeatZombiesModel(lawnWidth: 900, lawnHeight: 500, seed: 8)
        var targets: [LawnPoint] = []
        for _ in 0..<10_000 {
            let visible = game.zombies.filter {
                let r = game.drawFrame(of: $0)
                return r.x >= 0 && r.maxX <= game.lawnWidth
            }
            // Two zombies whose sprites don't overlap.
            outer: for a in visible {
                for b in visible where b.id != a.id {
                    let ra = game.drawFrame(of: a)
                    let rb = game.drawFrame(of: b)
                    if ra.maxX < rb.x || rb.maxX < ra.x || ra.maxY < rb.y || rb.maxY < ra.y {
                        targets = [LawnPoint(x: ra.midX, y: ra.midY), LawnPoint(x: rb.midX, y: rb.midY)]
                        break outer
                    }
                }
            }
            if !targets.isEmpty { break }
            game.advance(by: 0.05)
        }
        XCTAssertEqual(targets.count, 2)
        for point in targets { game.tap(at: point) }
        XCTAssertEqual(game.score, 2)
        XCTAssertEqual(game.zombies.filter(\.isBeaten).count, 2)
    }

    /// The original's rule (the default, `classic`): every hit adds 0.1 points per tick;
    /// "Faster!" at twice, three and four times the start speed.
    func testEveryHitSpeedsUpAndFasterIsSaidAtEachMultiple() {
        var game = BeatZombiesModel(lawnWidth: 375, lawnHeight: 500, seed: 12)
        var speedUpsAt: [Int: Int] = [:]
        while game.score < 16 {
            for event in beatOne(&game) {
                if case .speedUp(let level) = event { speedUpsAt[game.score] = level }
            }
            XCTAssertEqual(game.speedPerTick, 0.5 + 0.1 * Double(game.score), accuracy: 1e-12)
            if game.phase != .playing { return XCTFail("lost while scoring") }
        }
        XCTAssertEqual(speedUpsAt, [5: 1, 10: 2, 15: 3])
        XCTAssertEqual(game.crossingTime, 375 / 2.1 * 0.05, accuracy: 1e-9)
        // All zombies walk at the new speed.
        let before = game.zombies
        game.advance(by: 0.05)
        var checked = 0
        for (old, new) in zip(before, game.zombies) where !old.isBeaten && new.generation == old.generation {
            XCTAssertEqual(old.position.x - new.position.x, 2.1, accuracy: 1e-9)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 5)
    }

    func testAZombieWalkingOffTheLeftEdgeEntersTheHouseAndRespawns() {
        var rules = BeatZombiesRules()
        rules.zombieCount = 1
        var game = BeatZombiesModel(lawnWidth: 375, lawnHeight: 300, seed: 13, rules: rules)
        var events: [BeatZombiesEvent] = []
        while events.isEmpty { events = game.advance(by: 0.05) }
        XCTAssertEqual(events, [.enteredHouse(zombie: 0, count: 1)])
        XCTAssertEqual(game.inHouse, 1)
        XCTAssertEqual(game.zombies[0].generation, 1)
        assertSpawnedRight(game, game.zombies[0])
    }

    func testTheSixtiethZombieInTheHouseEndsTheGameAndFreezesEverything() {
        var game = BeatZombiesModel(lawnWidth: 500, lawnHeight: 300, seed: 14)
        var events: [BeatZombiesEvent] = []
        var seconds = 0.0
        while game.phase == .playing && seconds < 3600 {
            events += game.advance(by: 1.0 / 60)
            seconds += 1.0 / 60
        }
        XCTAssertEqual(game.phase, .lost)
        XCTAssertEqual(game.inHouse, 60)
        let entries = events.compactMap { event -> Int? in
            if case .enteredHouse(_, let count) = event { return count }
            return nil
        }
        XCTAssertEqual(entries, Array(1...60))
        XCTAssertEqual(events.last, .lost)
        XCTAssertEqual(events.filter { $0 == .lost }.count, 1)

        // Frozen: time does nothing and taps on a zombie are ignored.
        let frozen = game.zombies
        XCTAssertEqual(game.advance(by: 10), [])
        XCTAssertEqual(game.zombies, frozen)
        for zombie in game.zombies where game.isOnLawn(zombie) {
            let rect = game.drawFrame(of: zombie)
            XCTAssertEqual(game.tap(at: LawnPoint(x: max(0, rect.midX), y: rect.midY)), [])
        }
        XCTAssertEqual(game.score, 0)
        XCTAssertEqual(game.tickFraction, 0)
    }

    func testRestartResetsEverything() {
        var game = BeatZombiesModel(lawnWidth: 375, lawnHeight: 400, seed: 15)
        for _ in 0..<21 { beatOne(&game) }
        while game.phase == .playing { game.advance(by: 0.5) }
        XCTAssertEqual(game.inHouse, 60)
        game.restart()
        XCTAssertEqual(game.phase, .playing)
        XCTAssertEqual(game.score, 0)
        XCTAssertEqual(game.inHouse, 0)
        XCTAssertEqual(game.speedUps, 0)
        XCTAssertEqual(game.ticks, 0)
        XCTAssertEqual(game.speedPerTick, 0.5, accuracy: 1e-12)
        XCTAssertEqual(game.zombies.count, 15)
        for zombie in game.zombies {
            XCTAssertFalse(zombie.isBeaten)
            assertSpawnedRight(game, zombie)
        }
        XCTAssertEqual(game.tickFraction, 0)
        beatOne(&game)
        XCTAssertEqual(game.score, 1, "taps work again after a restart")
    }

    func testDrawFrameInterpolatesBetweenTicks() {
        var game = BeatZombiesModel(lawnWidth: 375, lawnHeight: 400, seed: 16)
        let x0 = game.zombies[0].position.x
        game.advance(by: 0.025)
        XCTAssertEqual(game.zombies[0].position.x, x0, "no tick yet")
        XCTAssertEqual(game.drawFrame(of: game.zombies[0]).x, x0 - 0.25, accuracy: 1e-9)
    }

    func testWalkCycleFramesStayInRange() {
        var game = BeatZombiesModel(lawnWidth: 375, lawnHeight: 400, seed: 17)
        for _ in 0..<100 {
            game.advance(by: 0.037)
            for zombie in game.zombies {
                let frame = game.walkFrame(of: zombie)
                XCTAssertTrue((0..<zombie.kind.frameCount).contains(frame))
                let progress = game.walkCycleProgress(of: zombie)
                XCTAssertTrue(progress >= 0 && progress < 1)
            }
        }
    }

    func testResizingKeepsZombiesOnTheLawn() {
        var game = BeatZombiesModel(lawnWidth: 800, lawnHeight: 400, seed: 18)
        game.advance(by: 20)
        game.resizeLawn(width: 400, height: 700)
        for zombie in game.zombies {
            XCTAssertGreaterThanOrEqual(zombie.position.y, 0)
            XCTAssertLessThanOrEqual(zombie.position.y + zombie.kind.height, 700 + 1e-9)
        }
        XCTAssertEqual(game.speedPerTick, 0.5 * 400 / 375, accuracy: 1e-12)
    }

    func testTheAutoplayerIsDeterministicForASeed() {
        func play(seed: UInt64) -> BeatZombiesModel {
            var game = BeatZombiesModel(lawnWidth: 700, lawnHeight: 380, seed: seed)
            var player = ZombieAutoplayer(seed: seed)
            for _ in 0..<(60 * 60) {  // a minute at 60 fps
                for point in player.taps(after: 1.0 / 60, in: game) { game.tap(at: point) }
                game.advance(by: 1.0 / 60)
            }
            return game
        }
        let game = play(seed: 21)
        XCTAssertGreaterThan(game.score, 30, "a minute of good play beats many zombies")
        let again = play(seed: 21)
        XCTAssertEqual(again.score, game.score, "deterministic for a seed")
        XCTAssertEqual(again.zombies, game.zombies)
    }

    func testTheAutoplayerStopsWhenTheGameIsLost() {
        var game = BeatZombiesModel(lawnWidth: 500, lawnHeight: 300, seed: 22)
        while game.phase == .playing { game.advance(by: 1) }
        var player = ZombieAutoplayer(seed: 1)
        XCTAssertEqual(player.taps(after: 5, in: game), [])
    }
}
