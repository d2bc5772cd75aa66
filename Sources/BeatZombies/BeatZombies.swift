import Audio
import Graphics
import Platform
import UI

extension GameDescriptor {
    /// Beat Zombies: tap the zombies before they reach the house. One best score.
    public static var beatZombies: GameDescriptor {
        GameDescriptor(
            id: "beat_zombies", names: [.english: "Beat Zombies", .chinese: "打僵尸"],
            emoji: "🧟", color: Color(hex: 0x3FA34D), music: .beatZombies,
            best: BestScore(variants: [ScoreVariant(key: BeatZombiesScene.bestKey)],
                            currentKey: { _, _ in BeatZombiesScene.bestKey },
                            label: { score, language, _ in language == .chinese ? "最高分 \(score)" : "High score \(score)" }),
            warmUp: { dataDirectory in
                // ~8 MB of sprite sheets: decoded here, off the run loop, before anyone plays.
                let loaded = ZombieSprites.shared(directory: dataDirectory + "/zombies")
                for error in loaded.errors { Log.warning("beat zombies: sprite sheet skipped: \(error)") }
            },
            makeScene: { BeatZombiesScene($0) })
    }
}
