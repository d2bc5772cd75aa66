import UI

/// The games the kiosk knows, in menu order: each game module's `GameDescriptor`.
public struct GameCatalog {
    public let games: [GameDescriptor]

    public init(_ games: [GameDescriptor]) {
        self.games = games
    }

    public var ids: [String] { games.map(\.id) }

    public func game(_ id: String) -> GameDescriptor? { games.first { $0.id == id } }

    func make(_ id: String, context: GameContext, autoplay: Bool) -> GameScene? {
        guard let scene = game(id)?.makeScene(context) else { return nil }
        scene.isAutoplaying = autoplay
        return scene
    }
}
