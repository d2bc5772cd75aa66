/// One of a game's result tables: a board size, a grid, a pack language. The kiosk keeps a
/// top-ten table under the same key as the variant's best result.
public struct ScoreVariant: Sendable, Equatable {
    /// The storage key of the variant's best ("2048.best.5x5"); also its table's key.
    public let key: String
    /// Its words on the table's title ("5×5", "中文"), in both languages; empty for a game
    /// with one table.
    public let names: [Language: String]

    public init(key: String, names: [Language: String] = [:]) {
        self.key = key
        self.names = names
    }

    public func name(_ language: Language) -> String { names[language] ?? names[.english] ?? "" }
}

/// How a game ranks its results and where it keeps its best ones.
public struct BestScore: Sendable {
    /// Memory Match counts moves: fewer is better.
    public let lowerIsBetter: Bool
    /// Every variant with a table of its own, in the order the table screen shows them.
    public let variants: [ScoreVariant]
    /// The storage key of the best result for the variant in play now (2048's board size,
    /// Memory's grid, Guess Picture's language, Beat Zombies' difficulty from the operator's
    /// game settings, `GameContext.settings`): the one the menu shows.
    public let currentKey: @Sendable (GameStorage, Language, _ settings: [String: String]) -> String
    /// The menu tile's words for the best result of the variant in play: "High score 120",
    /// "5×5 best 3012", "Fewest moves 14".
    public let label: @Sendable (_ result: Int, _ language: Language, _ storage: GameStorage) -> String

    public init(lowerIsBetter: Bool = false, variants: [ScoreVariant],
                currentKey: @escaping @Sendable (GameStorage, Language, _ settings: [String: String]) -> String,
                label: @escaping @Sendable (_ result: Int, _ language: Language, _ storage: GameStorage) -> String) {
        self.lowerIsBetter = lowerIsBetter
        self.variants = variants
        self.currentKey = currentKey
        self.label = label
    }

    /// Whether `result` beats `other` (nil: nothing yet, anything beats it) when results
    /// rank higher-first or, with `lowerIsBetter`, lower-first: the one comparison of
    /// results, for a game's best (`GameScene.recordBest`) and the kiosk's high-score tables.
    public static func isBetter(_ result: Int, than other: Int?, lowerIsBetter: Bool) -> Bool {
        guard let other else { return true }
        return lowerIsBetter ? result < other : result > other
    }

    /// Whether `result` beats `other` in this game's order.
    public func isBetter(_ result: Int, than other: Int?) -> Bool {
        Self.isBetter(result, than: other, lowerIsBetter: lowerIsBetter)
    }

    public func variant(_ key: String) -> ScoreVariant? { variants.first { $0.key == key } }
}

/// A finished game, as the scene reports it for the high-score table.
public struct GameResult: Equatable, Sendable {
    public var score: Int
    /// The variant's key (`ScoreVariant.key`): "2048.best.5x5".
    public var variantKey: String

    public init(score: Int, variantKey: String) {
        self.score = score
        self.variantKey = variantKey
    }
}
