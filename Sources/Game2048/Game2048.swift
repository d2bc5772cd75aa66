import Audio
import Graphics
import UI

extension GameDescriptor {
    /// 2048: slide and merge tiles. A best score per board size; the menu shows the one for
    /// the size the player last chose.
    public static var game2048: GameDescriptor {
        GameDescriptor(
            id: "2048", names: [.english: "2048", .chinese: "2048"],
            emoji: "🔢", color: Color(hex: 0xE8A33D), music: .game2048,
            best: BestScore(variants: Game2048Model.sizes.map { size in
                                ScoreVariant(key: Game2048Scene.bestKey(size), names: [.english: "\(size)×\(size)"])
                            },
                            currentKey: { storage, _, _ in Game2048Scene.bestKey(Game2048Scene.savedSize(storage)) },
                            label: { score, language, storage in
                                let size = Game2048Scene.savedSize(storage)
                                return language == .chinese ? "\(size)×\(size) 最高 \(score)" : "\(size)×\(size) best \(score)"
                            }),
            makeScene: { Game2048Scene($0) })
    }
}
