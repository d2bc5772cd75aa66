import GameCore
import XCTest
@testable import Game2048

/// The board after `direction`, without the tile the move spawned.
private func slid(_ rows: [[Int]], _ direction: Direction, seed: UInt64 = 1) throws -> [[Int]] {
    var game = try Game2048Model(rows: rows, seed: seed)
    let record = game.move(direction)
    var result = game.rows
    if let spawn = record.spawn { result[spawn.at.row][spawn.at.column] = 0 }
    return result
}

/// One row moved left, padded into a square board of `size` (other rows empty).
private func slidRow(_ row: [Int], size: Int, _ direction: Direction = .left) throws -> [Int] {
    var rows = Array(repeating: Array(repeating: 0, count: size), count: size)
    rows[0] = row + Array(repeating: 0, count: size - row.count)
    return try slid(rows, direction)[0]
}

final class Game2048MoveTests: XCTestCase {
    func testMergeOncePerMove() throws {
        XCTAssertEqual(try slidRow([2, 2, 2, 2], size: 4), [4, 4, 0, 0])
        XCTAssertEqual(try slidRow([4, 4, 8], size: 3), [8, 8, 0])
        XCTAssertEqual(try slidRow([4, 4, 8, 8], size: 4), [8, 16, 0, 0])
        XCTAssertEqual(try slidRow([2, 2, 4, 8], size: 4), [4, 4, 8, 0])
        XCTAssertEqual(try slidRow([8, 8, 8, 8, 8, 8, 8, 8], size: 8), [16, 16, 16, 16, 0, 0, 0, 0])
    }

    func testNearestTheWallMergesFirst() throws {
        XCTAssertEqual(try slidRow([2, 2, 2], size: 3, .left), [4, 2, 0])
        XCTAssertEqual(try slidRow([2, 2, 2], size: 3, .right), [0, 2, 4])
        XCTAssertEqual(try slidRow([2, 2, 2, 0, 0], size: 5, .right), [0, 0, 0, 2, 4])
        XCTAssertEqual(try slidRow([4, 2, 2, 2, 0], size: 5, .right), [0, 0, 4, 2, 4])
    }

    func testTilesSlideAsFarAsTheyGo() throws {
        XCTAssertEqual(try slidRow([0, 0, 0, 2], size: 4), [2, 0, 0, 0])
        XCTAssertEqual(try slidRow([0, 2, 0, 4, 0], size: 5), [2, 4, 0, 0, 0])
        XCTAssertEqual(try slidRow([2, 0, 0, 2, 0, 0], size: 6), [4, 0, 0, 0, 0, 0])
        XCTAssertEqual(try slidRow([2, 0, 4, 0, 0, 0, 0, 4], size: 8, .right), [0, 0, 0, 0, 0, 0, 2, 8])
    }

    func testColumnsOnSeveralSizes() throws {
        for size in Game2048Model.sizes {
            var rows = Array(repeating: Array(repeating: 0, count: size), count: size)
            // Column 1 holds 2, 2, 2 from the top; column 0 a lone 4 at the bottom.
            rows[0][1] = 2
            rows[1][1] = 2
            rows[2][1] = 2
            rows[size - 1][0] = 4
            let up = try slid(rows, .up)
            XCTAssertEqual(up.map { $0[1] }.prefix(3), [4, 2, 0], "size \(size)")
            XCTAssertEqual(up[0][0], 4, "size \(size)")
            let down = try slid(rows, .down)
            XCTAssertEqual(down.map { $0[1] }.suffix(2), [2, 4], "size \(size)")
            XCTAssertEqual(down[size - 1][0], 4, "size \(size)")
        }
    }

    func testScoreRisesByMergedValues() throws {
        var game = try Game2048Model(rows: [[2, 2, 4, 4], [8, 8, 0, 0], [0, 0, 0, 0], [2, 0, 0, 0]], seed: 3)
        let record = game.move(.left)
        XCTAssertEqual(record.scoreGained, 4 + 8 + 16)
        XCTAssertEqual(game.score, 28)
        XCTAssertEqual(record.merges.map(\.value).sorted(), [4, 8, 16])
    }

    func testModelAgreesWithFastRulesOnRandomBoards() throws {
        var rng = SeededRandom(seed: 42)
        for trial in 0..<600 {
            let size = Game2048Model.sizes.lowerBound + trial % Game2048Model.sizes.count
            let rows = (0..<size).map { _ in
                (0..<size).map { _ -> Int in
                    let r = Int.random(in: 0..<6, using: &rng)
                    return r == 0 ? 0 : 1 << r
                }
            }
            for direction in Direction.allCases {
                var game = try Game2048Model(rows: rows, seed: 9)
                let record = game.move(direction)
                var fast = rows.flatMap { $0 }
                let (changed, gained) = Board.slide(&fast, size: size, direction: direction)
                var modelRows = game.rows
                if let spawn = record.spawn { modelRows[spawn.at.row][spawn.at.column] = 0 }
                XCTAssertEqual(modelRows.flatMap { $0 }, fast, "\(rows) \(direction)")
                XCTAssertEqual(record.changed, changed)
                XCTAssertEqual(record.scoreGained, gained)
                // The ranks the autoplayer searches follow the same rules.
                var ranks = rows.flatMap { $0 }.map(Game2048Autoplayer.rank)
                _ = Game2048Autoplayer.slideRanks(&ranks, size: size, direction: direction)
                XCTAssertEqual(ranks, fast.map(Game2048Autoplayer.rank))
            }
        }
    }
}

final class Game2048RecordTests: XCTestCase {
    func testRecordsDescribeSlidesMergesAndSpawn() throws {
        var game = try Game2048Model(rows: [[0, 2, 0, 2], [4, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]], seed: 5)
        let before = Dictionary(uniqueKeysWithValues: game.tiles.map { ($0.tile.id, $0) })
        let record = game.move(.left)
        XCTAssertTrue(record.changed)
        XCTAssertEqual(record.direction, .left)
        // Every old tile has a slide that starts where it was.
        XCTAssertEqual(Set(record.slides.map(\.id)), Set(before.keys))
        for slide in record.slides {
            XCTAssertEqual(before[slide.id]?.position, slide.from)
            XCTAssertEqual(before[slide.id]?.tile.value, slide.value)
        }
        XCTAssertEqual(record.moved.count, 3)  // the two 2s and the 8; the 4 stays
        XCTAssertEqual(record.merges.count, 1)
        let merge = record.merges[0]
        XCTAssertEqual(merge.value, 4)
        XCTAssertEqual(merge.at, Position(row: 0, column: 0))
        XCTAssertEqual(merge.sources.count, 2)
        for source in merge.sources {
            let slide = try XCTUnwrap(record.slides.first { $0.id == source })
            XCTAssertTrue(slide.mergesAway)
            XCTAssertEqual(slide.to, merge.at)
        }
        XCTAssertFalse(before.keys.contains(merge.id), "a merge makes a new tile")
        // The board after the move is the slid survivors, the merges and the spawn.
        var expected: [Int: Position] = [:]
        for slide in record.slides where !slide.mergesAway { expected[slide.id] = slide.to }
        for merge in record.merges { expected[merge.id] = merge.at }
        let spawn = try XCTUnwrap(record.spawn)
        expected[spawn.id] = spawn.at
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: game.tiles.map { ($0.tile.id, $0.position) }), expected)
        XCTAssertEqual(game.tile(at: spawn.at)?.value, spawn.value)
    }

    func testIdsAreUniqueAcrossAGame() throws {
        var game = try Game2048Model(size: 4, seed: 77)
        var seen = Set(game.tiles.map(\.tile.id))
        for step in 0..<200 {
            let record = game.move(Direction.allCases[step % 4])
            for id in record.merges.map(\.id) + (record.spawn.map { [$0.id] } ?? []) {
                XCTAssertTrue(seen.insert(id).inserted, "id \(id) reused")
            }
            if game.phase != .playing { break }
        }
    }
}

final class Game2048SpawnTests: XCTestCase {
    func testNewGameHasTwoTiles() throws {
        for size in Game2048Model.sizes {
            let game = try Game2048Model(size: size, seed: UInt64(size))
            XCTAssertEqual(game.tiles.count, 2)
            XCTAssertTrue(game.tiles.allSatisfy { [2, 4].contains($0.tile.value) })
            XCTAssertEqual(game.score, 0)
            XCTAssertEqual(game.phase, .playing)
        }
        XCTAssertEqual(try Game2048Model(seed: 1).size, 5, "5x5 by default")
    }

    func testSpawnOnlyAfterAChange() throws {
        let rows = [[2, 4, 8], [0, 0, 0], [0, 0, 0]]
        var game = try Game2048Model(rows: rows, seed: 11)
        for direction in [Direction.left, .right, .up] {
            let record = game.move(direction)
            XCTAssertFalse(record.changed, "\(direction)")
            XCTAssertNil(record.spawn)
            XCTAssertTrue(record.slides.isEmpty)
            XCTAssertEqual(game.rows, rows)
            XCTAssertFalse(game.canMove(direction))
        }
        XCTAssertEqual(game.moveCount, 0)
        XCTAssertFalse(game.canUndo)
        XCTAssertTrue(game.canMove(.down))
        let record = game.move(.down)
        XCTAssertNotNil(record.spawn)
        XCTAssertEqual(game.tiles.count, 4)
        XCTAssertEqual(game.moveCount, 1)
    }

    func testTwoOrFourWithNinetyPercentTwos() throws {
        var fours = 0
        var cells = [Int](repeating: 0, count: 16)
        let trials = 20_000
        var game = try Game2048Model(rows: Array(repeating: Array(repeating: 0, count: 4), count: 4), seed: 2024)
        for _ in 0..<trials {
            let spawn = try XCTUnwrap(game.spawn())
            XCTAssertTrue([2, 4].contains(spawn.value))
            if spawn.value == 4 { fours += 1 }
            cells[spawn.at.row * 4 + spawn.at.column] += 1
            XCTAssertTrue(game.undo())
        }
        // Binomial(20000, 0.1): sd is about 42; allow 4 sd.
        XCTAssertEqual(Double(fours), 2000, accuracy: 170)
        // Cells uniform: chi-square with 15 degrees of freedom, p = 0.001 critical value 37.7.
        let expected = Double(trials) / 16
        let chiSquare = cells.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        XCTAssertLessThan(chiSquare, 37.7)
    }

    func testSpawnGoesOnlyIntoEmptyCells() throws {
        var game = try Game2048Model(rows: [[2, 4, 8], [16, 32, 64], [128, 256, 0]], seed: 8)
        let spawn = try XCTUnwrap(game.spawn())
        XCTAssertEqual(spawn.at, Position(row: 2, column: 2))
        XCTAssertNil(game.spawn(), "full board")
    }

    func testSameSeedSameGame() throws {
        var a = try Game2048Model(size: 6, seed: 123)
        var b = try Game2048Model(size: 6, seed: 123)
        for step in 0..<100 {
            let direction = Direction.allCases[(step * 7) % 4]
            XCTAssertEqual(a.move(direction), b.move(direction))
        }
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(try Game2048Model(size: 6, seed: 124).rows, try Game2048Model(size: 6, seed: 123).rows)
    }
}

final class Game2048OutcomeTests: XCTestCase {
    func testWinAtTheWinningValueThenKeepGoing() throws {
        var game = try Game2048Model(rows: [[1024, 1024, 0], [0, 0, 0], [0, 0, 2]], seed: 4)
        let record = game.move(.left)
        XCTAssertTrue(record.won)
        XCTAssertEqual(game.phase, .won)
        XCTAssertTrue(game.hasWon)
        XCTAssertEqual(game.largestTile, 2048)
        // Moves wait for the player's choice on the win panel.
        let rows = game.rows
        XCTAssertFalse(game.move(.right).changed)
        XCTAssertEqual(game.rows, rows)
        game.keepGoing()
        XCTAssertEqual(game.phase, .playing)
        XCTAssertTrue(game.move(.right).changed || game.move(.down).changed)
        XCTAssertEqual(game.phase, .playing)
    }

    func testWinningTwiceDoesNotWinAgain() throws {
        var game = try Game2048Model(rows: [[2048, 0, 0], [1024, 1024, 0], [0, 0, 0]], seed: 4)
        XCTAssertTrue(game.hasWon, "a board that already holds 2048 has been won")
        let record = game.move(.left)
        XCTAssertFalse(record.won)
        XCTAssertEqual(game.phase, .playing)
    }

    func testSmallerWinningValue() throws {
        var game = try Game2048Model(rows: [[32, 32, 0], [0, 0, 0], [0, 0, 0]], seed: 1, winningValue: 64)
        XCTAssertTrue(game.move(.right).won)
        XCTAssertEqual(game.phase, .won)
    }

    func testGameOverWhenNoMoveIsLeft() throws {
        // Moving right fills the last cell; neither a 2 nor a 4 can match its neighbours.
        var game = try Game2048Model(rows: [[2, 4, 2], [8, 2, 4], [16, 32, 0]], seed: 6)
        XCTAssertEqual(game.phase, .playing)
        let record = game.move(.right)
        XCTAssertTrue(record.gameOver)
        XCTAssertEqual(game.phase, .over)
        XCTAssertFalse(game.hasMoves)
        for direction in Direction.allCases {
            XCTAssertFalse(game.move(direction).changed)
        }
        XCTAssertNil(game.spawn())
    }

    func testFullBoardWithAMergeIsNotOver() throws {
        let game = try Game2048Model(rows: [[2, 4, 2], [8, 2, 4], [16, 16, 8]], seed: 6)
        XCTAssertEqual(game.phase, .playing)
        XCTAssertTrue(game.canMove(.left))
        XCTAssertFalse(game.canMove(.up))
    }

    func testAGivenDeadBoardIsOver() throws {
        let game = try Game2048Model(rows: [[2, 4, 2], [4, 2, 4], [2, 4, 2]], seed: 6)
        XCTAssertEqual(game.phase, .over)
    }

    func testUndoOneMove() throws {
        let rows = [[2, 2, 0], [0, 4, 0], [0, 0, 0]]
        var game = try Game2048Model(rows: rows, seed: 10)
        XCTAssertFalse(game.undo())
        game.move(.left)
        XCTAssertEqual(game.score, 4)
        XCTAssertTrue(game.canUndo)
        XCTAssertTrue(game.undo())
        XCTAssertEqual(game.rows, rows)
        XCTAssertEqual(game.score, 0)
        XCTAssertEqual(game.moveCount, 0)
        XCTAssertFalse(game.canUndo, "one move only")
        XCTAssertFalse(game.undo())
        // Two moves, then undo: back to after the first.
        game.move(.left)
        let afterFirst = game.rows
        game.move(.up)
        game.undo()
        XCTAssertEqual(game.rows, afterFirst)
    }

    func testUndoTakesBackAWinAndAGameOver() throws {
        var won = try Game2048Model(rows: [[1024, 1024, 0], [0, 0, 0], [0, 0, 0]], seed: 4)
        won.move(.left)
        XCTAssertEqual(won.phase, .won)
        won.undo()
        XCTAssertEqual(won.phase, .playing)
        XCTAssertFalse(won.hasWon)

        var over = try Game2048Model(rows: [[2, 4, 2], [8, 2, 4], [16, 32, 0]], seed: 6)
        over.move(.right)
        XCTAssertEqual(over.phase, .over)
        over.undo()
        XCTAssertEqual(over.phase, .playing)
    }

    func testRestart() throws {
        var game = try Game2048Model(rows: [[2, 2, 0], [0, 4, 0], [0, 0, 0]], seed: 10)
        game.move(.left)
        game.restart()
        XCTAssertEqual(game.score, 0)
        XCTAssertEqual(game.tiles.count, 2)
        XCTAssertEqual(game.moveCount, 0)
        XCTAssertFalse(game.canUndo)
        XCTAssertEqual(game.size, 3)
    }

    func testBadInputIsAClearError() {
        XCTAssertThrowsError(try Game2048Model(size: 2, seed: 1)) {
            XCTAssertEqual($0 as? Game2048Error, .sizeOutOfRange(2))
        }
        XCTAssertThrowsError(try Game2048Model(size: 9, seed: 1))
        XCTAssertThrowsError(try Game2048Model(rows: [[2, 2, 2], [2, 2], [2, 2, 2]], seed: 1)) {
            XCTAssertEqual($0 as? Game2048Error, .rowsDoNotMatchSize(expected: 3))
        }
        XCTAssertThrowsError(try Game2048Model(rows: [[3, 0, 0], [0, 0, 0], [0, 0, 0]], seed: 1)) {
            XCTAssertEqual($0 as? Game2048Error, .invalidTileValue(3))
        }
        XCTAssertThrowsError(try Game2048Model(rows: [[1, 0, 0], [0, 0, 0], [0, 0, 0]], seed: 1))
        XCTAssertThrowsError(try Game2048Model(size: 4, seed: 1, winningValue: 100))
        XCTAssertEqual(Game2048Error.sizeOutOfRange(9).description, "board size 9 is outside 3...8")
    }
}

final class Game2048AutoplayerTests: XCTestCase {
    /// Plays until the game ends (keeping going past a win) or `limit` moves.
    private func play(size: Int, seed: UInt64, limit: Int) throws -> Game2048Model {
        var game = try Game2048Model(size: size, seed: seed)
        let player = Game2048Autoplayer()
        for _ in 0..<limit {
            if game.phase == .won { game.keepGoing() }
            guard game.phase == .playing, let direction = player.bestMove(for: game) else { break }
            XCTAssertTrue(game.move(direction).changed, "the autoplayer only picks moves that change the board")
        }
        return game
    }

    func testReachesADecentTileOn4x4() throws {
        let game = try play(size: 4, seed: 2026, limit: 700)
        XCTAssertGreaterThanOrEqual(game.largestTile, 512)
    }

    func testReaches2048On5x5() throws {
        var game = try Game2048Model(size: 5, seed: 7)
        let player = Game2048Autoplayer()
        while game.phase == .playing, game.moveCount < 1400, let direction = player.bestMove(for: game) {
            game.move(direction)
        }
        XCTAssertEqual(game.phase, .won)
    }

    func testPlaysEveryBoardSize() throws {
        for size in Game2048Model.sizes {
            let game = try play(size: size, seed: UInt64(100 + size), limit: 60)
            XCTAssertGreaterThanOrEqual(game.moveCount, size == 3 ? 20 : 60, "size \(size)")
        }
    }

    func testNoMoveOnADeadBoard() throws {
        let game = try Game2048Model(rows: [[2, 4, 2], [4, 2, 4], [2, 4, 2]], seed: 6)
        XCTAssertNil(Game2048Autoplayer().bestMove(for: game))
    }
}
