import Audio
import Graphics
import UI

extension GameCatalog {
    /// The four games, in menu order. `dataDirectory` holds data files (question packs).
    public static func standard(dataDirectory: String?) -> GameCatalog {
        var catalog = GameCatalog()
        catalog.add(GameEntry(id: "beat_zombies", names: [.english: "Beat Zombies", .chinese: "打僵尸"],
                              emoji: "🧟", color: Color(hex: 0x3FA34D)),
                    bestKey: { _ in "zombies.best" }) { _, _, _, _ in nil }
        catalog.add(GameEntry(id: "guess_picture", names: [.english: "Guess Picture", .chinese: "超级猜图"],
                              emoji: "🖼", color: Color(hex: 0x3B82F6)),
                    bestKey: { "guess.best.\($0.rawValue)" }) { _, _, _, _ in nil }
        catalog.add(GameEntry(id: "2048", names: [.english: "2048", .chinese: "2048"],
                              emoji: "🔢", color: Color(hex: 0xE8A33D)),
                    bestKey: { _ in "2048.best.5x5" }) { _, _, _, _ in nil }
        catalog.add(GameEntry(id: "memory", names: [.english: "Memory Match", .chinese: "记忆翻牌"],
                              emoji: "🃏", color: Color(hex: 0xA855F7)),
                    bestKey: { _ in "memory.best.4x4" }) { _, _, _, _ in nil }
        return catalog
    }
}
