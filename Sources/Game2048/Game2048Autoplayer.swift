/// Picks moves for the attract mode: an expectimax search (player move, then the random
/// spawn averaged over cells and over 2/4, then the next player move) scored by a
/// heuristic that likes empty cells, equal neighbours and rows/columns that run
/// monotonically toward a corner.
public struct Game2048Autoplayer: Sendable {
    /// Player moves looked ahead; 2 is enough to play well and cheap enough for a Pi.
    public var depth: Int
    /// Chance nodes average over at most this many empty cells (spread evenly over the
    /// board), which bounds the cost on big, empty boards.
    public var maxChanceCells: Int

    public init(depth: Int = 2, maxChanceCells: Int = 8) {
        self.depth = max(1, depth)
        self.maxChanceCells = max(1, maxChanceCells)
    }

    /// The move to make, or nil when no move changes the board.
    public func bestMove(for model: Game2048Model) -> Direction? {
        bestMove(values: model.values, size: model.size)
    }

    func bestMove(values: [Int], size: Int) -> Direction? {
        let ranks = values.map(Self.rank)
        var best: (direction: Direction, score: Double)?
        for direction in Direction.allCases {
            var board = ranks
            guard Self.slideRanks(&board, size: size, direction: direction) else { continue }
            let score = chance(board, size: size, depth: depth - 1)
            if best == nil || score > best!.score { best = (direction, score) }
        }
        return best?.direction
    }

    // The search works on ranks (log2 of the value, 0 = empty): small numbers that keep the
    // heuristic's powers in range on an 8x8 board.

    private func chance(_ board: [Int], size: Int, depth: Int) -> Double {
        if depth == 0 { return Self.evaluate(board, size: size) }
        let empty = board.indices.filter { board[$0] == 0 }
        if empty.isEmpty { return maximum(board, size: size, depth: depth) }
        let stride = max(1, (empty.count + maxChanceCells - 1) / maxChanceCells)
        var total = 0.0
        var count = 0
        var next = board
        for index in Swift.stride(from: 0, to: empty.count, by: stride).map({ empty[$0] }) {
            next[index] = 1
            let two = maximum(next, size: size, depth: depth)
            next[index] = 2
            let four = maximum(next, size: size, depth: depth)
            next[index] = 0
            total += (1 - Game2048Model.fourProbability) * two + Game2048Model.fourProbability * four
            count += 1
        }
        return total / Double(count)
    }

    private func maximum(_ board: [Int], size: Int, depth: Int) -> Double {
        var best = -Double.infinity
        for direction in Direction.allCases {
            var next = board
            guard Self.slideRanks(&next, size: size, direction: direction) else { continue }
            best = max(best, chance(next, size: size, depth: depth - 1))
        }
        // No move left: a lost board, scored far below any live one.
        return best == -.infinity ? -1e9 : best
    }

    static func rank(_ value: Int) -> Int {
        value <= 0 ? 0 : Int.bitWidth - 1 - value.leadingZeroBitCount
    }

    /// `Board.slide` on ranks: equal ranks merge into rank + 1.
    static func slideRanks(_ cells: inout [Int], size: Int, direction: Direction) -> Bool {
        var changed = false
        for l in 0..<size {
            let (start, step) = Board.line(l, size: size, direction: direction)
            var slot = 0
            var lastMerged = true
            for k in 0..<size {
                let from = start + k * step
                let rank = cells[from]
                if rank == 0 { continue }
                cells[from] = 0
                let previous = start + (slot - 1) * step
                if !lastMerged, cells[previous] == rank {
                    cells[previous] = rank + 1
                    lastMerged = true
                    changed = true
                } else {
                    let to = start + slot * step
                    cells[to] = rank
                    if to != from { changed = true }
                    lastMerged = false
                    slot += 1
                }
            }
        }
        return changed
    }

    /// Heuristic weights; `evaluate` documents what each one rewards.
    struct Weights: Sendable {
        var empty = 10.0
        var merges = 4.0
        var monotonicity = 1.0
        var corner = 4.0
    }
    static let weights = Weights()

    /// Higher is better: room to move (empty cells), pairs ready to merge, and order - each
    /// row and column should rise toward one end (penalised by the squared ranks out of
    /// order), with the largest tile in a corner, where it cannot be trapped.
    static func evaluate(_ board: [Int], size: Int, weights: Weights = weights) -> Double {
        var empty = 0
        var merges = 0
        var disorder = 0
        var largest = 0
        for i in 0..<size {
            // Row i and column i, each charged the cheaper of its two directions.
            var rowUp = 0, rowDown = 0, columnUp = 0, columnDown = 0
            for j in 0..<size {
                let cell = board[i * size + j]
                if cell == 0 { empty += 1 }
                largest = max(largest, cell)
                guard j + 1 < size else { continue }
                let right = board[i * size + j + 1]
                let here = board[j * size + i]
                let below = board[(j + 1) * size + i]
                if cell != 0 && cell == right { merges += 1 }
                if here != 0 && here == below { merges += 1 }
                let rowStep = right * right - cell * cell
                if rowStep > 0 { rowUp += rowStep } else { rowDown -= rowStep }
                let columnStep = below * below - here * here
                if columnStep > 0 { columnUp += columnStep } else { columnDown -= columnStep }
            }
            disorder += min(rowUp, rowDown) + min(columnUp, columnDown)
        }
        let last = size - 1
        let corners = [board[0], board[last], board[last * size], board[last * size + last]]
        let cornered = corners.contains(largest) ? largest : 0
        return weights.empty * Double(empty) + weights.merges * Double(merges)
            - weights.monotonicity * Double(disorder) + weights.corner * Double(cornered)
    }
}
