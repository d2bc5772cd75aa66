import Audio
import Graphics
import UI

extension GameDescriptor {
    /// Memory Match: find the pairs in as few moves as possible. A best per grid, lower is
    /// better; the menu shows the one for the grid the player last chose.
    public static var memoryMatch: GameDescriptor {
        GameDescriptor(
            id: "memory", names: [.english: "Memory Match", .chinese: "记忆翻牌"],
            emoji: "🃏", color: Color(hex: 0xA855F7), music: .memoryMatch,
            best: BestScore(lowerIsBetter: true,
                            variants: GridSize.allCases.map { grid in
                                ScoreVariant(key: MemoryMatchScene.bestKey(grid), names: [.english: grid.rawValue.replacingX])
                            },
                            currentKey: { storage, _, _ in MemoryMatchScene.bestKey(MemoryMatchScene.savedGrid(storage)) },
                            label: { moves, language, _ in language == .chinese ? "最少 \(moves) 步" : "Fewest moves \(moves)" }),
            makeScene: { MemoryMatchScene($0) })
    }
}
