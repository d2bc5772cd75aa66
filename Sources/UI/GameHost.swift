/// What a game scene gets from the kiosk besides sound: where to keep its best scores and
/// settings, the language, and whether it plays itself (attract mode).

public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case chinese = "zh"
}

/// Persistent per-game values (best scores, chosen theme, board size). The kiosk backs
/// it with the atomic state store; tests use `MemoryStorage`. Keys are namespaced by the
/// game, e.g. "2048.best.5x5".
public protocol GameStorage: AnyObject {
    func integer(_ key: String) -> Int?
    func setInteger(_ key: String, _ value: Int)
    func string(_ key: String) -> String?
    func setString(_ key: String, _ value: String)
}

public final class MemoryStorage: GameStorage {
    public private(set) var values: [String: String] = [:]
    public init() {}
    public func integer(_ key: String) -> Int? { values[key].flatMap { Int($0) } }
    public func setInteger(_ key: String, _ value: Int) { values[key] = String(value) }
    public func string(_ key: String) -> String? { values[key] }
    public func setString(_ key: String, _ value: String) { values[key] = value }
}

/// Implemented by every game scene so the kiosk can run it the same way.
public protocol GameScene: Scene {
    /// Attract mode: the scene plays itself with its autoplayer; touches are not passed in.
    var isAutoplaying: Bool { get set }
    /// Leaving (home, idle): pause music and the clock. Coming back: resume.
    func pause()
    func resume()
}
