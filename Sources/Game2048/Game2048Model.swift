import GameCore

/// The rules of 2048 as a value: moves are `mutating` steps, randomness comes from a seeded
/// generator held inside, and every step returns a record a scene can animate from.

public enum Direction: String, CaseIterable, Sendable {
    case up, down, left, right
}

/// A cell of the board; row 0 is the top, column 0 the left.
public struct Position: Hashable, Sendable, CustomStringConvertible {
    public var row: Int
    public var column: Int
    public init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }
    public var description: String { "(\(row),\(column))" }
}

/// A tile keeps its id while it slides; a merge ends both source tiles and makes a new one,
/// so a scene can key its views by id.
public struct Tile: Equatable, Sendable {
    public let id: Int
    public let value: Int
}

public struct PlacedTile: Equatable, Sendable {
    public let tile: Tile
    public let position: Position
}

/// What one step did, for a scene to animate: slides first, then merged tiles pop, then
/// the spawned tile appears.
public struct MoveRecord: Equatable, Sendable {
    /// Every tile present before the move, including those that stayed (`from == to`).
    public struct Slide: Equatable, Sendable {
        public let id: Int
        public let value: Int
        public let from: Position
        public let to: Position
        /// The tile slides into `to` and ends there, replaced by the merge's new tile.
        public let mergesAway: Bool
    }
    public struct Merge: Equatable, Sendable {
        /// The new tile; `sources` are the two tiles (nearer the wall first) it replaces.
        public let id: Int
        public let value: Int
        public let at: Position
        public let sources: [Int]
    }
    public struct Spawn: Equatable, Sendable {
        public let id: Int
        public let value: Int
        public let at: Position
    }

    public let direction: Direction?
    public internal(set) var slides: [Slide] = []
    public internal(set) var merges: [Merge] = []
    public internal(set) var spawn: Spawn?
    public internal(set) var scoreGained = 0
    /// False when the move could not shift anything: nothing spawned, nothing to undo.
    public internal(set) var changed = false
    /// This step reached the winning value for the first time.
    public internal(set) var won = false
    /// This step left no possible move.
    public internal(set) var gameOver = false

    public var moved: [Slide] { slides.filter { $0.from != $0.to } }
}

public enum Game2048Error: Error, Equatable, Sendable, CustomStringConvertible {
    case sizeOutOfRange(Int)
    case rowsDoNotMatchSize(expected: Int)
    case invalidTileValue(Int)
    case invalidWinningValue(Int)

    public var description: String {
        switch self {
        case .sizeOutOfRange(let size):
            "board size \(size) is outside \(Game2048Model.sizes.lowerBound)...\(Game2048Model.sizes.upperBound)"
        case .rowsDoNotMatchSize(let expected):
            "a board needs \(expected) rows of \(expected) cells"
        case .invalidTileValue(let value):
            "tile value \(value) is not a power of two of at least 2 (0 means empty)"
        case .invalidWinningValue(let value):
            "winning value \(value) is not a power of two of at least 4"
        }
    }
}

public struct Game2048Model: Equatable, Sendable {
    public static let sizes = 3...8
    public static let defaultSize = 5
    /// The chance that a new tile is a 4 rather than a 2.
    public static let fourProbability = 0.1

    public enum Phase: Equatable, Sendable {
        case playing
        /// Reached the winning value; moves wait until the player chooses to keep going.
        case won
        case over
    }

    public let size: Int
    public let winningValue: Int
    public private(set) var score = 0
    public private(set) var phase = Phase.playing
    /// Set once the winning value has been reached, so keeping on never wins twice.
    public private(set) var hasWon = false
    /// Moves that changed the board.
    public private(set) var moveCount = 0

    private var cells: [Tile?]
    private var nextID = 1
    private var rng: SeededRandom
    private var undoState: UndoState?

    /// What undo restores. Tile ids and the generator keep going forward: ids stay unique
    /// for the scene, and a redone move may spawn differently.
    private struct UndoState: Equatable, Sendable {
        var cells: [Tile?]
        var score: Int
        var phase: Phase
        var hasWon: Bool
        var moveCount: Int
    }

    /// A new game: an empty board with two spawned tiles.
    public init(size: Int = Game2048Model.defaultSize, seed: UInt64, winningValue: Int = 2048)
        throws(Game2048Error)
    {
        guard Self.sizes.contains(size) else { throw .sizeOutOfRange(size) }
        guard winningValue >= 4, Self.isPowerOfTwo(winningValue) else {
            throw .invalidWinningValue(winningValue)
        }
        self.init(checkedSize: size, seed: seed, winningValue: winningValue)
    }

    /// A new game for a size already known to be in `sizes` (one out of range is clamped).
    init(checkedSize size: Int, seed: UInt64, winningValue: Int = 2048) {
        self.size = min(max(size, Self.sizes.lowerBound), Self.sizes.upperBound)
        self.winningValue = winningValue
        cells = Array(repeating: nil, count: self.size * self.size)
        rng = SeededRandom(seed: seed)
        spawnTile()
        spawnTile()
    }

    /// A game from given rows (0 = empty), for practice setups and tests.
    public init(rows: [[Int]], seed: UInt64, score: Int = 0, winningValue: Int = 2048)
        throws(Game2048Error)
    {
        let size = rows.count
        guard Self.sizes.contains(size) else { throw .sizeOutOfRange(size) }
        guard rows.allSatisfy({ $0.count == size }) else { throw .rowsDoNotMatchSize(expected: size) }
        guard winningValue >= 4, Self.isPowerOfTwo(winningValue) else {
            throw .invalidWinningValue(winningValue)
        }
        self.size = size
        self.winningValue = winningValue
        self.score = max(0, score)
        rng = SeededRandom(seed: seed)
        cells = []
        cells.reserveCapacity(size * size)
        var id = 1
        for row in rows {
            for value in row {
                if value == 0 {
                    cells.append(nil)
                } else if value >= 2, Self.isPowerOfTwo(value) {
                    cells.append(Tile(id: id, value: value))
                    id += 1
                } else {
                    throw .invalidTileValue(value)
                }
            }
        }
        nextID = id
        if cells.contains(where: { ($0?.value ?? 0) >= winningValue }) { hasWon = true }
        if !hasMoves { phase = .over }
    }

    // MARK: Reading the board

    public func tile(at position: Position) -> Tile? {
        guard contains(position) else { return nil }
        return cells[position.row * size + position.column]
    }

    public func contains(_ position: Position) -> Bool {
        (0..<size).contains(position.row) && (0..<size).contains(position.column)
    }

    /// Values by row, 0 for an empty cell.
    public var rows: [[Int]] {
        (0..<size).map { row in (0..<size).map { cells[row * size + $0]?.value ?? 0 } }
    }

    public var tiles: [PlacedTile] {
        cells.indices.compactMap { index in
            cells[index].map { PlacedTile(tile: $0, position: position(of: index)) }
        }
    }

    public var largestTile: Int { cells.reduce(0) { max($0, $1?.value ?? 0) } }
    public var emptyCellCount: Int { cells.reduce(0) { $0 + ($1 == nil ? 1 : 0) } }

    /// Flat row-major values (0 = empty): the form the autoplayer searches.
    var values: [Int] { cells.map { $0?.value ?? 0 } }

    public func canMove(_ direction: Direction) -> Bool {
        var board = values
        return Board.slide(&board, size: size, direction: direction).changed
    }

    /// Some move would change the board.
    public var hasMoves: Bool { Board.hasMoves(values, size: size) }

    public var canUndo: Bool { undoState != nil }

    // MARK: Steps

    /// Slides every tile toward `direction`. Ignored (an unchanged record) unless playing.
    @discardableResult
    public mutating func move(_ direction: Direction) -> MoveRecord {
        var record = MoveRecord(direction: direction)
        guard phase == .playing else { return record }
        let before = UndoState(
            cells: cells, score: score, phase: phase, hasWon: hasWon, moveCount: moveCount)
        var result = [Tile?](repeating: nil, count: cells.count)

        for line in 0..<size {
            let (start, step) = Board.line(line, size: size, direction: direction)
            var slot = 0
            // The last tile placed in this line, its slide's index in the record, and
            // whether it came from a merge (a tile merges at most once per move).
            var last: (tile: Tile, slide: Int, merged: Bool)?
            for k in 0..<size {
                let from = start + k * step
                guard let tile = cells[from] else { continue }
                if let previous = last, !previous.merged, previous.tile.value == tile.value {
                    let to = start + (slot - 1) * step
                    let merged = Tile(id: takeID(), value: tile.value * 2)
                    result[to] = merged
                    last = (merged, previous.slide, true)
                    let earlier = record.slides[previous.slide]
                    record.slides[previous.slide] = MoveRecord.Slide(
                        id: earlier.id, value: earlier.value, from: earlier.from, to: earlier.to,
                        mergesAway: true)
                    record.slides.append(slide(tile, from: from, to: to, mergesAway: true))
                    record.merges.append(MoveRecord.Merge(
                        id: merged.id, value: merged.value, at: position(of: to),
                        sources: [previous.tile.id, tile.id]))
                    record.scoreGained += merged.value
                    if merged.value >= winningValue && !hasWon { record.won = true }
                } else {
                    let to = start + slot * step
                    result[to] = tile
                    last = (tile, record.slides.count, false)
                    slot += 1
                    record.slides.append(slide(tile, from: from, to: to, mergesAway: false))
                }
            }
        }

        record.changed = record.slides.contains { $0.from != $0.to }
        guard record.changed else {
            record.slides = []
            return record
        }
        cells = result
        score += record.scoreGained
        moveCount += 1
        undoState = before
        record.spawn = spawnTile()
        if record.won {
            hasWon = true
            phase = .won
        } else if !hasMoves {
            phase = .over
            record.gameOver = true
        }
        return record
    }

    /// After the win panel: play on past the winning value.
    public mutating func keepGoing() {
        guard phase == .won else { return }
        phase = hasMoves ? .playing : .over
    }

    /// Takes back the last move (or practice spawn). One level only.
    @discardableResult
    public mutating func undo() -> Bool {
        guard let state = undoState else { return false }
        cells = state.cells
        score = state.score
        phase = state.phase
        hasWon = state.hasWon
        moveCount = state.moveCount
        undoState = nil
        return true
    }

    /// Practice mode's spawn button: one more random tile, if there is room.
    @discardableResult
    public mutating func spawn() -> MoveRecord.Spawn? {
        guard phase == .playing, emptyCellCount > 0 else { return nil }
        undoState = UndoState(
            cells: cells, score: score, phase: phase, hasWon: hasWon, moveCount: moveCount)
        let spawned = spawnTile()
        if !hasMoves { phase = .over }
        return spawned
    }

    /// A fresh game of the same size; the generator continues, so it is a new deal.
    public mutating func restart() {
        cells = Array(repeating: nil, count: size * size)
        score = 0
        phase = .playing
        hasWon = false
        moveCount = 0
        undoState = nil
        spawnTile()
        spawnTile()
    }

    // MARK: Helpers

    /// A 2 (p = 0.9) or a 4 in a uniformly chosen empty cell.
    @discardableResult
    private mutating func spawnTile() -> MoveRecord.Spawn? {
        let empty = cells.indices.filter { cells[$0] == nil }
        guard !empty.isEmpty else { return nil }
        let index = empty[Int.random(in: 0..<empty.count, using: &rng)]
        let value = Int.random(in: 0..<10, using: &rng) == 0 ? 4 : 2
        let tile = Tile(id: takeID(), value: value)
        cells[index] = tile
        return MoveRecord.Spawn(id: tile.id, value: value, at: position(of: index))
    }

    private mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private func position(of index: Int) -> Position {
        Position(row: index / size, column: index % size)
    }

    private func slide(_ tile: Tile, from: Int, to: Int, mergesAway: Bool) -> MoveRecord.Slide {
        MoveRecord.Slide(
            id: tile.id, value: tile.value, from: position(of: from), to: position(of: to),
            mergesAway: mergesAway)
    }

    static func isPowerOfTwo(_ value: Int) -> Bool { value > 0 && value & (value - 1) == 0 }
}

/// The move rules on bare values (row-major, 0 = empty): the fast path the autoplayer
/// searches with. `Game2048Model.move` applies the same rules with tile identities; a test
/// checks the two agree on random boards.
enum Board {
    /// Where line `line` starts for a move toward `direction`, and the index step away
    /// from the wall: the tile nearest the wall comes first, so it merges first.
    static func line(_ line: Int, size: Int, direction: Direction) -> (start: Int, step: Int) {
        switch direction {
        case .left: (line * size, 1)
        case .right: (line * size + size - 1, -1)
        case .up: (line, size)
        case .down: ((size - 1) * size + line, -size)
        }
    }

    @discardableResult
    static func slide(_ cells: inout [Int], size: Int, direction: Direction)
        -> (changed: Bool, gained: Int)
    {
        var changed = false
        var gained = 0
        for l in 0..<size {
            let (start, step) = line(l, size: size, direction: direction)
            var slot = 0
            var lastMerged = true  // nothing placed yet: nothing to merge with
            for k in 0..<size {
                let from = start + k * step
                let value = cells[from]
                if value == 0 { continue }
                cells[from] = 0
                let previous = start + (slot - 1) * step
                if !lastMerged, cells[previous] == value {
                    cells[previous] = value * 2
                    gained += value * 2
                    lastMerged = true
                    changed = true
                } else {
                    let to = start + slot * step
                    cells[to] = value
                    if to != from { changed = true }
                    lastMerged = false
                    slot += 1
                }
            }
        }
        return (changed, gained)
    }

    static func hasMoves(_ cells: [Int], size: Int) -> Bool {
        for row in 0..<size {
            for column in 0..<size {
                let value = cells[row * size + column]
                if value == 0 { return true }
                if column + 1 < size && cells[row * size + column + 1] == value { return true }
                if row + 1 < size && cells[(row + 1) * size + column] == value { return true }
            }
        }
        return false
    }
}
