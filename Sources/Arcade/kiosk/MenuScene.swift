#if canImport(Glibc)
import Glibc
#endif
import Graphics
import Input
import UI

/// A big tile: the game's picture, its name and the best score.
final class GameTile: Button {
    let game: GameDescriptor
    var language: Language { didSet { setNeedsDisplay() } }
    /// The best result's words for the variant in play (nil: never played); the game's
    /// descriptor says what it is.
    var best: String? { didSet { if best != oldValue { setNeedsDisplay() } } }

    /// The game's own tile picture (`GameDescriptor.tilePicture`), else its emoji is drawn.
    let picture: Surface?

    init(game: GameDescriptor, language: Language, picture: Surface?) {
        self.game = game
        self.language = language
        self.picture = picture
        super.init("", kind: .secondary)
        cornerRadius = 22
        visualOutset = GameTile.shadow.reach
    }

    static let shadow = Shadow(blur: 12, offsetY: 6)

    override func draw(_ canvas: Canvas) {
        let r = bounds.insetBy(isPressed ? 4 : 0, isPressed ? 4 : 0)
        let top = isPressed ? game.color.darker(0.2) : game.color
        canvas.fillRoundedRect(r, radius: cornerRadius, top.darker(0.35),
                               shadow: isPressed ? nil : GameTile.shadow)
        canvas.fillRoundedRect(Rect(r.x, r.y, r.width, r.height - 6), radius: cornerRadius, top)
        // A soft light spot behind the picture: a faint white over the face, painted as the
        // opaque colour that makes (cheaper to composite), on whole pixels. Every tile's
        // spot is then one mask, which the second tile's asking keeps (`EllipseMasks`);
        // each in its own place within a pixel, they were rasterized anew at every return
        // to the menu.
        let pictureSide = min(r.width * 0.62, r.height * 0.5)
        let pc = Point(r.midX, r.minY + r.height * 0.38)
        canvas.snappedToPixels().fillCircle(center: pc, radius: pictureSide * 0.62,
                                            top.overlaid(with: Color.white.withAlpha(0.16)))
        if let picture {
            let aspect = Double(picture.width) / Double(picture.height)
            let side = Size(aspect >= 1 ? pictureSide : pictureSide * aspect, aspect >= 1 ? pictureSide / aspect : pictureSide)
            canvas.drawImage(picture, in: Rect(center: pc, size: side))
        } else {
            canvas.drawEmoji(game.emoji, in: Rect(center: pc, size: Size(pictureSide, pictureSide)),
                             fonts: UIEnvironment.fonts)
        }
        var nameStyle = TextStyle(size: min(28, r.width / 7), weight: .bold, color: .white)
        let nameWidth = UIEnvironment.fonts.measure(game.name(language), style: nameStyle, scale: canvas.scale)
        if nameWidth > r.width - 20 { nameStyle.size *= (r.width - 20) / nameWidth }
        canvas.drawText(game.name(language), in: Rect(r.minX + 8, r.minY + r.height * 0.68, r.width - 16, r.height * 0.14),
                        style: nameStyle, fonts: UIEnvironment.fonts, wrap: false)
        let bestText = best ?? (language == .chinese ? "新游戏" : "New!")
        canvas.drawText(bestText, in: Rect(r.minX + 8, r.minY + r.height * 0.82, r.width - 16, r.height * 0.12),
                        style: TextStyle(size: min(18, r.width / 11), color: Color.white.withAlpha(0.85)),
                        fonts: UIEnvironment.fonts, wrap: false)
        if isFocused {
            canvas.strokeRoundedRect(bounds.insetBy(-6, -6), radius: cornerRadius + 6, width: 4, Theme.text)
        }
    }
}

/// The screen the kiosk boots to: one big tile per enabled game.
public final class MenuScene: Scene {
    public private(set) var games: [GameDescriptor]
    public var language: Language { didSet { applyLanguage() } }
    /// Called with a game's id when its tile is chosen.
    public var onOpen: ((String) -> Void)?
    /// Called with a game's id when its trophy (the high-score tables) is chosen.
    public var onShowScores: ((String) -> Void)?
    private var tiles: [GameTile] = []
    private var trophies: [Button] = []
    private let title = Label("", style: Theme.title)
    private let subtitle = Label("", style: Theme.caption)
    /// Credits mode: the credits and what to do ("Credits 2 · tap a game", "Insert coin"),
    /// shown in place of the subtitle; nil in free play.
    public var creditLine: String? { didSet { if creditLine != oldValue { applyLanguage() } } }

    /// Where the games' own tile pictures are read from (`<data_dir>`); nil draws every
    /// tile's emoji.
    private let dataDirectory: String?
    /// Tile pictures read so far, by game id (nil: the game has none).
    private var tilePictures: [String: Surface?] = [:]

    public init(games: [GameDescriptor], language: Language, dataDirectory: String? = nil) {
        self.games = games
        self.language = language
        self.dataDirectory = dataDirectory
        super.init()
        // The scene's own background: the screen need not clear under it.
        backgroundGradient = VerticalGradient(top: Theme.backgroundTop, bottom: Theme.background)
        addSubview(title)
        addSubview(subtitle)
        rebuildTiles()
        applyLanguage()
    }

    public func setGames(_ games: [GameDescriptor]) {
        self.games = games
        rebuildTiles()
        layout()
    }

    /// Shows each game's best result for the variant in play (none yet: "New!").
    public func showBestResults(_ storage: GameStorage, settings: [String: String] = [:]) {
        for t in tiles {
            t.best = t.game.bestResult(storage, language: language, settings: settings)
                .map { t.game.best.label($0, language, storage) }
        }
    }

    private func rebuildTiles() {
        tiles.forEach { $0.removeFromSuperview() }
        trophies.forEach { $0.removeFromSuperview() }
        tiles = games.map { game in
            let tile = GameTile(game: game, language: language, picture: tilePicture(game))
            tile.action = { [weak self] in self?.onOpen?(game.id) }
            addSubview(tile)
            return tile
        }
        // Above the tiles, so a touch on the trophy opens the tables, not the game.
        trophies = games.map { game in
            let trophy = Button(icon: "🏆", kind: .quiet)
            trophy.tag = "scores." + game.id
            trophy.action = { [weak self] in self?.onShowScores?(game.id) }
            addSubview(trophy)
            return trophy
        }
    }

    private func tilePicture(_ game: GameDescriptor) -> Surface? {
        guard let dataDirectory, let load = game.tilePicture else { return nil }
        if let known = tilePictures[game.id] { return known }
        let picture = load(dataDirectory)
        tilePictures[game.id] = picture
        return picture
    }

    private func applyLanguage() {
        title.text = language == .chinese ? "游戏乐园" : "Boardwalk"
        subtitle.text = creditLine ?? (language == .chinese ? "点一个游戏开始" : "Tap a game to play")
        subtitle.style = creditLine == nil ? Theme.caption : Theme.body.with(weight: .bold, color: Theme.accent)
        for t in tiles { t.language = language }
    }

    public override func layout() {
        let portrait = size.height > size.width
        title.frame = Rect(0, portrait ? 40 : 18, size.width, 56)
        subtitle.frame = Rect(0, title.frame.maxY, size.width, 26)
        let top = subtitle.frame.maxY + 18
        let area = Rect(24, top, size.width - 48, size.height - top - 24)
        let count = tiles.count
        let columns: Int
        if portrait { columns = count <= 1 ? 1 : 2 } else { columns = count <= 4 ? max(1, count) : 3 }
        let rows = max(1, (count + columns - 1) / columns)
        var cells = GridLayout(columns: columns, rows: rows, spacing: 20).frames(in: area)
        // Tiles keep a pleasant shape: not taller than 1.35x their width.
        cells = cells.map { c in
            let h = min(c.height, c.width * 1.35)
            return Rect(center: c.center, size: Size(c.width, h))
        }
        for (i, t) in tiles.enumerated() {
            t.frame = cells[i]
            trophies[i].frame = Rect(cells[i].maxX - 58, cells[i].minY + 6, 52, 52)
        }
    }

    public override func handleBack() {}

    /// A tile was chosen without the credits for it: the credit line shakes.
    public func shakeCreditLine() {
        let base = subtitle.frame
        animator.tween(duration: 0.4, easing: .linear) { [weak self] t in
            self?.subtitle.frame = base.offsetBy(sin(t * .pi * 6) * 12 * (1 - t), 0)
        }
    }

    public func tile(for id: String) -> View? { tiles.first { $0.game.id == id } }
    public func trophy(for id: String) -> View? { trophies.first { $0.tag == "scores." + id } }
}
