import Audio
import Graphics
import Platform
import UI

extension GameDescriptor {
    /// Beat Zombies: tap the zombies before they reach the house. A best score and a table
    /// per difficulty; the menu shows the operator's difficulty's.
    public static var beatZombies: GameDescriptor {
        GameDescriptor(
            id: "beat_zombies", names: [.english: "Beat Zombies", .chinese: "打僵尸"],
            emoji: "🧟", tilePicture: { ZombieSprites.tilePicture(directory: $0 + "/zombies") },
            color: Color(hex: 0x3FA34D), music: .beatZombies,
            best: BestScore(variants: BeatZombiesDifficulty.allCases.map { difficulty in
                                ScoreVariant(key: BeatZombiesScene.bestKey(difficulty), names: difficulty.names)
                            },
                            currentKey: { _, _, settings in BeatZombiesScene.bestKey(BeatZombiesScene.difficulty(settings)) },
                            label: { score, language, _ in language == .chinese ? "最高分 \(score)" : "High score \(score)" }),
            warmUp: { dataDirectory in
                // ~8 MB of sprite sheets: decoded here, off the run loop, before anyone plays.
                let loaded = ZombieSprites.shared(directory: dataDirectory + "/zombies")
                for error in loaded.errors { Log.warning("beat zombies: sprite sheet skipped: \(error)") }
            },
            makeScene: { BeatZombiesScene($0) })
    }
}

extension BeatZombiesDifficulty {
    /// Its words on the score tables and in the operator menu.
    public var names: [Language: String] {
        switch self {
        case .gentle: [.english: "Gentle", .chinese: "轻松"]
        case .classic: [.english: "Classic", .chinese: "经典"]
        case .arcade: [.english: "Arcade", .chinese: "街机"]
        }
    }
}
