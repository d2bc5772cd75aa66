import Audio
import Graphics
import UI

extension GameDescriptor {
    /// Guess Picture (超级猜图): name the picture from 21 characters. A best score per pack
    /// language.
    public static var guessPicture: GameDescriptor {
        GameDescriptor(
            id: "guess_picture", names: [.english: "Guess Picture", .chinese: "超级猜图"],
            emoji: "🖼", color: Color(hex: 0x3B82F6), music: .guessPicture,
            best: BestScore(variants: [
                                ScoreVariant(key: GuessPictureScene.bestKey(packLanguage: "en"),
                                             names: [.english: "English", .chinese: "英文"]),
                                ScoreVariant(key: GuessPictureScene.bestKey(packLanguage: "zh"),
                                             names: [.english: "Chinese", .chinese: "中文"]),
                            ],
                            currentKey: { _, language, _ in GuessPictureScene.bestKey(packLanguage: language.rawValue) },
                            label: { score, language, _ in language == .chinese ? "最高分 \(score)" : "High score \(score)" }),
            makeScene: { GuessPictureScene($0) })
    }
}
