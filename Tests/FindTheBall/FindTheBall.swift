import Audio
import Graphics
import UI

extension GameDescriptor {
    /// Find the Ball: the fifth game of the add-a-game recipe (docs/ARCHITECTURE.md), made
    /// by following it in a test target. One best, higher is better.
    public static var findTheBall: GameDescriptor {
        GameDescriptor(
            id: "find_the_ball", names: [.english: "Find the Ball", .chinese: "找小球"],
            emoji: "⚽", color: Color(hex: 0x22C55E), music: .memoryMatch,
            best: BestScore(variants: [ScoreVariant(key: FindTheBallScene.bestKey)],
                            currentKey: { _, _, _ in FindTheBallScene.bestKey },
                            label: { found, language, _ in language == .chinese ? "最多 \(found) 个" : "Most found \(found)" }),
            makeScene: { FindTheBallScene($0) })
    }
}
