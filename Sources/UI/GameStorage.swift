/// Persistent per-game values (best scores, chosen theme, board size). The kiosk backs
/// it with the atomic state store; tests use `MemoryStorage`. Keys are namespaced by the
/// game, e.g. "2048.best.5x5"; a key holding ".best" is a score (the operator can clear
/// those), everything else a setting.
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

/// A game's names in the storage: settings are "<namespace>.<name>", best results
/// "<namespace>.best" or "<namespace>.best.<variant>". The ".best" marks a score for the
/// state store (the operator can clear scores, never settings). Namespaces are stored
/// data: they never change ("zombies", "guess", "2048", "memory").
public struct StorageKeys: Sendable {
    public let namespace: String

    public init(namespace: String) { self.namespace = namespace }

    public func setting(_ name: String) -> String { "\(namespace).\(name)" }
    public func best(_ variant: String? = nil) -> String {
        variant.map { "\(namespace).best.\($0)" } ?? "\(namespace).best"
    }

    /// Whether a stored key holds a score.
    public static func isScore(_ key: String) -> Bool { key.contains(".best") }
}
