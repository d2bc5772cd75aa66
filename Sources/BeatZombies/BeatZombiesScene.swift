import GameCore
import Audio
import Graphics
import Input
import Platform
import UI

#if canImport(Glibc)
import Glibc
#endif

/// Beat Zombies on screen: a lawn with the house on the left, the art set's zombies walking
/// across it (`ZombieSprites`: drawn sprite sheets), the score and the house counter on top,
/// and the "zombies won" panel. The rules live in `BeatZombiesModel`; this only feeds it taps and
/// time and draws what it says.
public final class BeatZombiesScene: GameScene {
    /// Only where a data directory has no art for a kind (a bare test, a broken sheet): the
    /// zombie emoji with a drawn walk cycle. The kiosk's art is `<data_dir>/zombies`.
    static let fallbackEmoji = "🧟"
    /// The operator's config key that picks `BeatZombiesDifficulty` (`GameContext.settings`).
    public static let difficultyKey = "zombies.difficulty"

    /// The difficulty the operator's settings pick (arcade when they name none).
    static func difficulty(_ settings: [String: String]) -> BeatZombiesDifficulty {
        settings[difficultyKey].flatMap(BeatZombiesDifficulty.init(rawValue:)) ?? .arcade
    }

    /// A best score and a table per difficulty, so classic and arcade records never mix:
    /// "zombies.best.gentle", "zombies.best.classic"; arcade, the default, keeps the key
    /// every cabinet's records were kept under before, "zombies.best".
    static func bestKey(_ difficulty: BeatZombiesDifficulty) -> String {
        let keys = StorageKeys(namespace: "zombies")
        return difficulty == .arcade ? keys.best() : keys.best(difficulty.rawValue)
    }

    /// The storage key of this game's best (its difficulty's).
    let bestKey: String

    public override var isAutoplaying: Bool {
        didSet { if isAutoplaying != oldValue { autoplayer = ZombieAutoplayer(seed: seed &+ 1) } }
    }

    public private(set) var game: BeatZombiesModel
    private var autoplayer: ZombieAutoplayer
    private(set) var best: Int

    let topBar = View()
    let scoreLabel = Label("", style: Theme.heading.with(alignment: .left))
    let bestLabel = Label("", style: Theme.body.with(color: Theme.textDim, alignment: .left))
    let houseLabel = Label("", style: Theme.body.with(alignment: .right))
    let houseMeter: DrawingView
    let houseView: DrawingView
    let lawnView: LawnView
    /// Sprites by emoji and pixel size (mirrored where needed); a handful of entries.
    private var sprites: [String: Surface] = [:]
    private var shownScore = -1
    private var shownHouse = -1

    /// The zombies' sprite sheets by kind (see `ZombieSprites`); kinds without one use the emoji.
    let art: ZombieSprites

    /// `<data_dir>/zombies` holds the art (sprites.json and PNG sheets: the built-in set, or
    /// an operator's); the operator's `zombies.difficulty` picks the rules.
    public init(_ context: GameContext) {
        let loaded = ZombieSprites.shared(directory: context.dataDirectory + "/zombies")
        for error in loaded.errors { Log.warning("beat zombies: sprite sheet skipped: \(error)") }
        art = loaded.sprites
        let difficulty = Self.difficulty(context.settings)
        bestKey = Self.bestKey(difficulty)
        game = BeatZombiesModel(lawnWidth: 640, lawnHeight: 400, seed: context.seed, rules: difficulty.rules)
        autoplayer = ZombieAutoplayer(seed: context.seed &+ 1)
        best = context.storage.integer(bestKey) ?? 0
        houseMeter = DrawingView { _, _ in }
        houseView = DrawingView { _, _ in }
        lawnView = LawnView(seed: context.seed, art: loaded.sprites)
        super.init(context, game: .beatZombies)
        backgroundColor = Theme.background
        lawnView.owner = self

        scoreLabel.shrinksToFit = true
        houseLabel.shrinksToFit = true
        houseMeter.drawing = { [weak self] canvas, bounds in self?.drawHouseMeter(canvas, bounds) }
        // The house changes only when a window fills: one picture, composited under the
        // zombies walking past its door rather than drawn again (its wall, roof, windows
        // and shadow were a third of a 1080p frame).
        houseView.drawing = { [weak self] canvas, bounds in
            guard let self else { return }
            let faces = min(2, (self.game.inHouse + 9) / 10)
            canvas.drawCached("beat-zombies.house.\(faces)", in: bounds) { c in
                self.drawHouse(c, Rect(0, 0, bounds.width, bounds.height), faces: faces)
            }
        }

        addSubview(houseView)
        addSubview(lawnView)
        addSubview(topBar)
        topBar.backgroundColor = Theme.surface
        [homeButton, scoreLabel, bestLabel, houseLabel, houseMeter].forEach(topBar.addSubview)
        refreshLabels()
    }

    // MARK: - Layout

    public override func layout() {
        let barHeight: Double = 64
        topBar.frame = Rect(0, 0, size.width, barHeight)
        homeButton.frame = Rect(10, 8, 56, 48)
        scoreLabel.frame = Rect(80, 4, 200, 34)
        bestLabel.frame = Rect(80, 38, 200, 22)
        let meterWidth = min(260, size.width * 0.32)
        houseLabel.frame = Rect(size.width - meterWidth - 16, 6, meterWidth, 28)
        houseMeter.frame = Rect(size.width - meterWidth - 16, 40, meterWidth, 14)

        let houseWidth = max(90, min(170, size.width * 0.13))
        let lawnRect = Rect(houseWidth, barHeight, size.width - houseWidth, size.height - barHeight)
        houseView.frame = Rect(0, barHeight, houseWidth, size.height - barHeight)
        lawnView.frame = lawnRect
        lawnView.clipsToBounds = true
        game.resizeLawn(width: lawnRect.width, height: lawnRect.height)
        lawnView.redrawAll()
        endPanel?.layout(in: size)
    }

    // MARK: - Frames

    public override var isLive: Bool { !isPaused && game.phase == .playing }

    public override func update(dt: Double) {
        guard !isPaused, game.phase == .playing, dt > 0 else { return }
        // A frame that comes very late (the kiosk was busy) is capped so the zombies don't
        // jump across the lawn; the rules stay fixed-step either way.
        let step = min(dt, 0.25)
        if isAutoplaying {
            for point in autoplayer.taps(after: step, in: game) { handle(game.tap(at: point)) }
        }
        handle(game.advance(by: step))
        lawnView.zombiesChanged()
    }

    /// A finger came down on the lawn (local lawn points).
    func lawnTouched(at point: Point) {
        guard !isPaused, !isAutoplaying else { return }
        handle(game.tap(at: LawnPoint(x: point.x, y: point.y)))
        lawnView.zombiesChanged()
    }

    private func handle(_ events: [BeatZombiesEvent]) {
        for event in events {
            switch event {
            case .hit(let id, _):
                let zombie = game.zombies[id]
                let rect = game.drawFrame(of: zombie)
                let pan = Float(max(-1, min(1, rect.midX / game.lawnWidth * 2 - 1)))
                sound.play(.zombieHit, gain: 1, pan: pan)
                showFloatingText("+1", at: Point(rect.midX, rect.minY), color: Theme.accent)
                if game.score > best && !isAutoplaying { best = game.score }
            case .speedUp:
                sound.play(.hint, gain: 0.8, pan: 0)
                showBanner(text("Faster!", "加速！"))
            case .enteredHouse:
                sound.play(.mismatch, gain: 0.5, pan: -1)
                houseView.setNeedsDisplay()
            case .lost:
                sound.stopMusic()
                sound.play(.zombiesWon)
                saveBest()
                showLostPanel()
            }
        }
        refreshLabels()
    }

    private func refreshLabels() {
        if shownScore != game.score {
            shownScore = game.score
            scoreLabel.text = text("Score \(game.score)", "得分 \(game.score)")
            bestLabel.text = text("Best \(max(best, 0))", "最高 \(best)")
        }
        if shownHouse != game.inHouse {
            shownHouse = game.inHouse
            houseLabel.text = text("In the house \(game.inHouse)/\(game.rules.houseCapacity)",
                                   "进屋 \(game.inHouse)/\(game.rules.houseCapacity)")
            houseMeter.setNeedsDisplay()
            houseView.setNeedsDisplay()
        }
    }

    /// The game's score so far is kept as the best when it is one (a player who walks away
    /// keeps it too).
    private func saveBest() { recordBest(game.score, variantKey: bestKey) }

    // MARK: - Effects

    /// "+1" rising and fading above a beaten zombie.
    private func showFloatingText(_ string: String, at lawnPoint: Point, color: Color) {
        let label = Label(string, style: Theme.heading.with(color: color))
        let start = Point(lawnView.frame.minX + lawnPoint.x, lawnView.frame.minY + max(20, lawnPoint.y))
        label.frame = Rect(center: start, size: Size(80, 40))
        addSubview(label)
        if let endPanel { bringToFront(endPanel) }
        animator.tween(duration: 0.7, easing: .easeOut) { [weak label] t in
            label?.frame = Rect(center: Point(start.x, start.y - 40 * t), size: Size(80, 40))
            label?.alpha = t < 0.5 ? 1 : 1 - (t - 0.5) * 2
        }.onComplete { [weak label] in label?.removeFromSuperview() }
    }

    /// A word that pops in over the lawn and fades.
    private func showBanner(_ string: String) {
        let label = Label(string, style: Theme.title.with(color: Theme.accent))
        label.frame = Rect(center: Point(lawnView.frame.midX, lawnView.frame.minY + 70), size: Size(360, 70))
        label.scale = 0.4
        label.alpha = 0
        addSubview(label)
        animator.tween(duration: Theme.normal, easing: .backOut) { [weak label] t in
            label?.scale = lerp(0.4, 1, t)
            label?.alpha = min(1, t * 2)
        }.then(duration: 0.8, easing: .linear) { _ in }
            .then(duration: Theme.normal) { [weak label] t in label?.alpha = 1 - t }
            .onComplete { [weak label] in label?.removeFromSuperview() }
    }

    private func showLostPanel() {
        present(EndOfGamePanel(
            emoji: Self.fallbackEmoji, image: art.lostPicture,
            title: text("The zombies won!", "僵尸赢了！"), titleColor: Theme.error,
            headline: text("Score \(game.score)", "得分 \(game.score)"),
            lines: [text("Best \(best)", "最高 \(best)")],
            choices: [.init(text("Play again", "再来一局"), icon: "🔄") { [weak self] in self?.restart() }]))
        reportResult(game.score, variantKey: bestKey)
    }

    /// Lost, the game can go on where it was (a credit's continue).
    public override var canContinue: Bool { game.phase == .lost }

    public override func continueGame() {
        guard canContinue else { return }
        dismissEndPanel()
        game.continueAfterLoss()
        selection = nil
        shownHouse = -1
        refreshLabels()
        lawnView.redrawAll()
        if !isAutoplaying { sound.playMusic(music) }
    }

    /// Starts a new game on the same lawn.
    public func restart() {
        dismissEndPanel()
        game.restart()
        selection = nil
        shownScore = -1
        shownHouse = -1
        refreshLabels()
        lawnView.redrawAll()
        if !isAutoplaying { sound.playMusic(music) }
    }

    // MARK: - Keys and arcade sticks

    /// The zombie the stick points at (slot and generation, so a respawn isn't mistaken for
    /// it) and where it was last seen, in lawn points.
    private(set) var selection: (id: Int, generation: Int)?
    private var selectionPoint = Point(0, 0)

    /// The selected zombie if it is still walking on the lawn.
    var selectedZombie: Zombie? {
        guard let selection, game.zombies.indices.contains(selection.id) else { return nil }
        let zombie = game.zombies[selection.id]
        guard zombie.generation == selection.generation, !zombie.isBeaten, game.isOnLawn(zombie) else { return nil }
        return zombie
    }

    /// Arrows pick the nearest zombie that way, confirm beats it. Once the zombies have
    /// won, keys fall through to focus navigation (the restart button).
    public override func handleKey(_ key: Key) -> Bool {
        guard game.phase == .playing, !isPaused, !isAutoplaying else { return false }
        switch key {
        case .left, .right, .up, .down:
            select(towards: key)
            return true
        case .confirm, .start:
            guard let zombie = selectedZombie ?? nearestZombie(to: selectionPoint, towards: nil) else { return true }
            let rect = game.drawFrame(of: zombie)
            selectionPoint = Point(rect.midX, rect.midY)
            handle(game.tap(at: LawnPoint(x: rect.midX, y: rect.midY)))
            // Stay where the stick was: the next press picks a zombie near here.
            if let next = nearestZombie(to: selectionPoint, towards: nil) { setSelection(next) }
            lawnView.zombiesChanged()
            return true
        default:
            return false
        }
    }

    private func select(towards key: Key) {
        if let current = selectedZombie {
            let rect = game.drawFrame(of: current)
            selectionPoint = Point(rect.midX, rect.midY)
            if let next = nearestZombie(to: selectionPoint, towards: key, excluding: current.id) { setSelection(next) }
        } else if let first = nearestZombie(to: Point(0, game.lawnHeight / 2), towards: nil) {
            // Nothing picked yet: start with the zombie nearest the house.
            setSelection(first)
        }
        lawnView.zombiesChanged()
    }

    private func setSelection(_ zombie: Zombie) {
        selection = (zombie.id, zombie.generation)
        let rect = game.drawFrame(of: zombie)
        selectionPoint = Point(rect.midX, rect.midY)
    }

    /// The walking, visible zombie nearest a point, optionally only those that way of it.
    private func nearestZombie(to point: Point, towards key: Key?, excluding: Int? = nil) -> Zombie? {
        var best: (Zombie, Double)?
        for zombie in game.zombies where !zombie.isBeaten && zombie.id != excluding {
            let rect = game.drawFrame(of: zombie)
            guard rect.maxX > 0, rect.minX < game.lawnWidth - 10 else { continue }
            let dx = rect.midX - point.x, dy = rect.midY - point.y
            let along: Double, across: Double
            switch key {
            case .left?: (along, across) = (-dx, abs(dy))
            case .right?: (along, across) = (dx, abs(dy))
            case .up?: (along, across) = (-dy, abs(dx))
            case .down?: (along, across) = (dy, abs(dx))
            default: (along, across) = (sqrt(dx * dx + dy * dy), 0)
            }
            if key != nil && along <= 1 { continue }
            let score = along + 2 * across
            if best == nil || score < best!.1 { best = (zombie, score) }
        }
        return best?.0
    }

    // MARK: - Kiosk

    /// The tune stops when the zombies win and starts again with the next game.
    public override var wantsMusic: Bool { !isAutoplaying && game.phase == .playing }

    public override func saveProgress() { saveBest() }

    // MARK: - Drawing

    private func drawHouseMeter(_ canvas: Canvas, _ bounds: Rect) {
        canvas.fillRoundedRect(bounds, radius: bounds.height / 2, Theme.surfaceRaised)
        let fraction = Double(game.inHouse) / Double(game.rules.houseCapacity)
        guard fraction > 0 else { return }
        let width = max(bounds.height, bounds.width * min(1, fraction))
        let color = fraction < 0.5 ? Color(hex: 0x7BC950) : fraction < 0.8 ? Theme.accent : Theme.error
        canvas.fillRoundedRect(Rect(bounds.minX, bounds.minY, width, bounds.height), radius: bounds.height / 2, color)
    }

    /// The house: a wall, a roof, windows that fill with zombies as they get in (`faces`
    /// of its two windows show one), and an open door facing the lawn.
    private func drawHouse(_ canvas: Canvas, _ bounds: Rect, faces: Int) {
        let grassTop = Color(hex: 0x4E9A3A), grassBottom = Color(hex: 0x3A7A2C)
        canvas.fillVerticalGradient(bounds, top: grassTop, bottom: grassBottom)
        let w = bounds.width
        // Keep a house's proportions on a tall portrait column: at most ~2.6 widths high,
        // standing in the lower part of the lawn.
        let houseHeight = min(bounds.height * 0.94, w * 2.6)
        let houseTop = bounds.maxY - bounds.height * 0.06 - houseHeight
        let wallTop = houseTop + houseHeight * 0.24
        let wallBottom = bounds.maxY - bounds.height * 0.06
        let wall = Rect(bounds.minX, wallTop, w * 0.88, wallBottom - wallTop)
        canvas.shadow(wall, radius: 4, blur: 10, offsetY: 6)
        canvas.fill(wall, Color(hex: 0xE9D8B4))
        // Timber lines.
        for i in 1..<4 {
            let y = wall.minY + wall.height * Double(i) / 4
            canvas.fill(Rect(wall.minX, y, wall.width, 2), Color(hex: 0xCDB891))
        }
        // Roof.
        let roofTop = houseTop
        canvas.fillPolygon([Point(wall.minX - 6, wallTop + 4), Point(wall.midX, roofTop),
                            Point(wall.maxX + 10, wallTop + 4)], Color(hex: 0xB5452F))
        canvas.fill(Rect(wall.minX - 6, wallTop, wall.width + 16, 8), Color(hex: 0x8E3322))
        // Chimney.
        canvas.fill(Rect(wall.minX + wall.width * 0.18, roofTop + (wallTop - roofTop) * 0.25, w * 0.12,
                         (wallTop - roofTop) * 0.45), Color(hex: 0x8E3322))
        // Windows: a zombie face once one is inside, a second once eleven are.
        let windowSize = min(wall.width * 0.36, 46)
        for i in 0..<2 {
            let window = Rect(wall.minX + wall.width * 0.12, wall.minY + wall.height * (0.1 + 0.3 * Double(i)),
                              windowSize, windowSize)
            canvas.fillRoundedRect(window, radius: 4, Color(hex: 0xFFE9A3))
            canvas.strokeRoundedRect(window, radius: 4, width: 3, Color(hex: 0x6B4B2A))
            if faces > i, let face = art.windowPicture {
                canvas.drawImage(face, in: window.insetBy(3, 3))
            }
            canvas.fill(Rect(window.midX - 1.5, window.minY, 3, window.height), Color(hex: 0x6B4B2A))
            canvas.fill(Rect(window.minX, window.midY - 1.5, window.width, 3), Color(hex: 0x6B4B2A))
        }
        // The door, open towards the lawn.
        let doorWidth = wall.width * 0.34
        let door = Rect(wall.maxX - doorWidth - 4, wall.maxY - wall.height * 0.42, doorWidth, wall.height * 0.42)
        canvas.fillRoundedRect(door, radius: 6, Color(hex: 0x2A1C12))
        canvas.fillPolygon([Point(door.maxX, door.minY + 4), Point(door.maxX + doorWidth * 0.45, door.minY + 12),
                            Point(door.maxX + doorWidth * 0.45, door.maxY - 2), Point(door.maxX, door.maxY)],
                           Color(hex: 0x8A5A33))
        // Path from the door.
        canvas.fill(Rect(door.maxX, door.maxY - 4, bounds.maxX - door.maxX, 6), Color(hex: 0xC9B48A).withAlpha(0.7))
    }

    /// The emoji as a picture to draw scaled into its box. Asked for at one of the font's
    /// picture sizes (a few per octave), so every kind on every screen needs only a handful
    /// of pictures and a new lawn size does not add more.
    private func sprite(_ emoji: String, pixelSize: Int) -> Surface? {
        let size = FontLibrary.pictureSize(pixelSize)
        let key = "\(emoji)@\(size)"
        if let cached = sprites[key] { return cached }
        guard let scalar = emoji.unicodeScalars.first,
            let image = UIEnvironment.fonts.emojiImage(scalar, pixelSize: size)
        else { return nil }
        if sprites.count > 32 { sprites.removeAll() }
        sprites[key] = image
        return image
    }

    /// A sprite sheet's zombie: its frames make the walk, its hit pose the beating (grown
    /// then shrunk and faded by the model's animation).
    private func drawSpriteZombie(_ zombie: Zombie, rect: LawnRect, frames: [Surface], _ canvas: Canvas) {
        var frame = frames[game.walkFrame(of: zombie) % frames.count]
        if zombie.isBeaten, let hit = art.hitFrames[zombie.kind.index] { frame = hit }
        let scale = game.scale(of: zombie)
        var alpha = 1.0
        if case .beaten(let elapsed) = zombie.state, elapsed > game.rules.beatenDuration / 2 {
            alpha = max(0, 1 - (elapsed - game.rules.beatenDuration / 2) / (game.rules.beatenDuration / 2))
        }
        if !zombie.isBeaten {
            canvas.fillEllipse(Rect(rect.midX - rect.width * 0.35, rect.maxY - 7, rect.width * 0.7, 10),
                               Color(r: 0, g: 0, b: 0, a: 60))
        }
        let box = Rect(center: Point(rect.midX, rect.midY), size: Size(rect.width * scale, rect.height * scale))
        canvas.drawImage(frame, in: box, alpha: alpha)
    }

    /// Every place `drawZombie` and the stick's marker paint now, in lawn points: a frame
    /// that only moves the zombies on draws these and the last ones, not the whole lawn.
    func paintedAreas() -> [Rect] {
        let picked = selectedZombie?.id
        return game.zombies.compactMap { paintedArea(of: $0, isPicked: $0.id == picked) }
    }

    /// What `drawZombie` paints for one zombie (nil: nothing), with a margin.
    private func paintedArea(of zombie: Zombie, isPicked: Bool) -> Rect? {
        let rect = game.drawFrame(of: zombie)
        guard rect.maxX > -20, rect.minX < game.lawnWidth + 20 else { return nil }
        let scale = max(1, game.scale(of: zombie))
        let center = Point(rect.midX, rect.midY)
        var area: Rect
        if art.frames[zombie.kind.index]?.isEmpty == false {
            // The frame, grown by a beating, and its shadow under the feet.
            area = Rect(center: center, size: Size(rect.width * scale, rect.height * scale))
                .union(Rect(rect.minX, rect.minY, rect.width, rect.height + 3))
        } else {
            // The emoji bobs, leans and squashes, turns as it is beaten, and bursts above.
            let side = max(rect.width, rect.height) * scale
            area = Rect(center: center, size: Size(side * 1.5, side * 1.5))
                .union(Rect(rect.minX, rect.minY - 10, rect.width, rect.height + 13))
        }
        if isPicked {
            // The ring at its feet and the marker above its head.
            area = area.union(Rect(rect.midX - max(rect.width / 2, 10), rect.minY - 18,
                                   max(rect.width, 20), rect.height + 24))
        }
        return area.insetBy(-2, -2)
    }

    /// Draws one zombie in lawn points: its shadow, then its emoji with the walk cycle.
    func drawZombie(_ zombie: Zombie, _ canvas: Canvas) {
        let rect = game.drawFrame(of: zombie)
        guard rect.maxX > -20, rect.minX < game.lawnWidth + 20 else { return }
        if let frames = art.frames[zombie.kind.index], !frames.isEmpty {
            drawSpriteZombie(zombie, rect: rect, frames: frames, canvas)
            return
        }
        let emoji = Self.fallbackEmoji
        let side = min(rect.width, rect.height)
        let pixelSize = max(8, min(160, Int((side * canvas.scale).rounded())))
        guard let image = sprite(emoji, pixelSize: pixelSize) else { return }
        let aspect = Double(image.width) / Double(image.height)
        var height = side
        var width = side * aspect
        if width > rect.width { width = rect.width; height = width / aspect }
        let feet = Point(rect.midX, rect.maxY)

        let phase = game.walkCycleProgress(of: zombie) * 2 * Double.pi
        var bob = 0.0, sway = 0.0, squashY = 1.0, squashX = 1.0, alpha = 1.0
        let scale = game.scale(of: zombie)
        if zombie.isBeaten {
            // Grow-then-shrink from the model; a spin and a fade as it goes.
            sway = (scale - 1) * 0.35
            if case .beaten(let elapsed) = zombie.state, elapsed > game.rules.beatenDuration / 2 {
                alpha = max(0, 1 - (elapsed - game.rules.beatenDuration / 2) / (game.rules.beatenDuration / 2))
            }
        } else if zombie.kind.index == 3 {
            bob = -4 - 3 * sin(phase)
            sway = 0.05 * sin(phase)
        } else {
            // Two steps per cycle: bob on each, lean side to side, squash on landing.
            bob = -abs(sin(phase)) * height * 0.07
            sway = sin(phase) * 0.08
            squashY = 1 - 0.06 * cos(2 * phase)
            squashX = 1 + 0.04 * cos(2 * phase)
        }
        if !zombie.isBeaten {
            let shadowWidth = width * 0.7 * (1 + bob / height)
            canvas.fillEllipse(Rect(feet.x - shadowWidth / 2, feet.y - 7, shadowWidth, 10), Color(r: 0, g: 0, b: 0, a: 60))
        }
        let w = width * squashX * scale
        let h = height * squashY * scale
        let box = zombie.isBeaten
            ? Rect(center: Point(rect.midX, rect.midY), size: Size(w, h))
            : Rect(feet.x - w / 2, feet.y + bob - h, w, h)
        canvas.drawImage(image, in: box, rotation: sway, alpha: alpha)
        if zombie.isBeaten, case .beaten(let elapsed) = zombie.state, elapsed < 0.2 {
            // One cached bitmap scaled per frame: a glyph per animated size would fill the font cache.
            let burst = side * (0.6 + elapsed * 3)
            if let image = sprite("💥", pixelSize: pixelSize) {
                canvas.drawImage(image, in: Rect(center: Point(rect.midX, rect.minY + side * 0.3), size: Size(burst, burst)),
                                 alpha: 1 - elapsed * 4)
            }
        }
    }
}
