import GameCore
import Audio
import Graphics
import Input
import UI

#if canImport(Glibc)
import Glibc
#endif

/// 2048 on the kiosk: a "ready?" start screen, then tabs for the game, its settings (board
/// size, practice buttons) and a background colour. Swipes and arrow keys move; a move
/// made while tiles still slide finishes the slide first, so no swipe is lost.
public final class Game2048Scene: GameScene {
    /// How long tiles slide, and how long merged and new tiles pop.
    static let slideDuration = 0.1
    static let popDuration = 0.15
    static let tabIcons: [String?] = ["🎮", "⚙️", "🎨"]

    public override var isAutoplaying: Bool {
        didSet {
            guard isAutoplaying != oldValue else { return }
            if isAutoplaying {
                dismissEndPanel()
                if !started { started = true }
                showTab(0)
                newGame()
                autoplayPace.reset()
            }
            updateVisibility()
        }
    }

    private var seeds: SeededRandom
    private(set) var model: Game2048Model
    private var boardSize: Int
    private var themeIndex: Int
    /// The practice buttons were used this game: its score is not a record.
    private(set) var isPractice = false
    private(set) var started = false
    private(set) var selectedTab = 0

    private let autoplayer = Game2048Autoplayer()
    /// Attract mode: a move every 0.3 s, a pause on a finished board.
    private var autoplayPace = AutoplayPace(interval: 0.3)
    private var boardTweens: [Tween] = []
    private(set) var tileViews: [Int: TileView] = [:]

    // Views
    private let tabs: TabBar
    private let startPage = View()
    private let logo = View()
    private let readyLabel = Label("", style: Theme.title)
    private let readyCaption = Label("", style: Theme.body.with(color: Theme.textDim))
    private let goButton = Button("")
    private let gamePage = View()
    let board: BoardView
    private let scoreBox: StatBox
    private let bestBox: StatBox
    private let undoButton = Button("", icon: "↩️", kind: .secondary)
    private let newGameButton = Button("", kind: .secondary)
    private let hintLabel = Label("", style: Theme.caption)
    private let practiceBadge = Label("", style: Theme.caption.with(weight: .bold, color: Theme.accent))
    private let settingsPage = View()
    private let sizeTitle = Label("", style: Theme.heading.with(alignment: .left))
    private var sizeButtons: [Button] = []
    private let practiceTitle = Label("", style: Theme.heading.with(alignment: .left))
    private let practiceNote = Label("", style: Theme.caption.with(alignment: .left))
    private let resetButton = Button("", kind: .secondary)
    private let spawnButton = Button("", kind: .secondary)
    private let themePage = View()
    private let themeTitle = Label("", style: Theme.heading.with(alignment: .left))
    private var swatches: [SwatchButton] = []

    public init(_ context: GameContext) {
        let storage = context.storage
        seeds = SeededRandom(seed: context.seed)
        boardSize = Self.savedSize(storage)
        let savedTheme = storage.string(Self.keys.setting("theme"))
        themeIndex = BackgroundTheme.all.firstIndex { $0.key == savedTheme } ?? 0
        model = Game2048Model(checkedSize: boardSize, seed: seeds.next())
        let zh = context.language == .chinese
        tabs = TabBar(titles: zh ? ["游戏", "设置", "颜色"] : ["Game", "Settings", "Colour"],
                      icons: Self.tabIcons)
        board = BoardView(size: boardSize)
        scoreBox = StatBox(title: zh ? "分数" : "Score", value: "0")
        bestBox = StatBox(title: zh ? "最高" : "Best", value: "0")
        super.init(context, game: .game2048)
        build()
    }

    static let keys = StorageKeys(namespace: "2048")

    /// Best scores are kept per board size ("2048.best.5x5").
    static func bestKey(_ size: Int) -> String { keys.best("\(size)x\(size)") }

    /// The board size the player last chose (the default when none, or a bad value).
    static func savedSize(_ storage: GameStorage) -> Int {
        let saved = storage.integer(keys.setting("size")) ?? Game2048Model.defaultSize
        return Game2048Model.sizes.contains(saved) ? saved : Game2048Model.defaultSize
    }

    // MARK: - Building

    /// The chosen colour behind everything, and the words drawn straight on it in its ink.
    private func applyTheme() {
        let theme = BackgroundTheme.all[themeIndex]
        backgroundColor = theme.color
        for label in [readyLabel, sizeTitle, practiceTitle, themeTitle] { label.style = label.style.with(color: theme.ink) }
        for label in [readyCaption, hintLabel, practiceNote] { label.style = label.style.with(color: theme.dimInk) }
        practiceBadge.style = practiceBadge.style.with(color: theme.ink == Theme.text ? Theme.accent : theme.ink)
    }

    private func build() {
        tabs.onSelect = { [weak self] index in self?.showTab(index) }

        // Start page: the logo tiles, "Ready?" and the button that starts play.
        for (i, value) in [2, 0, 4, 8].enumerated() {
            let tile = LogoTile(digit: value, fill: TilePalette.fill([2, 8, 128, 2048][i]),
                                textColor: TilePalette.text([2, 8, 128, 2048][i]))
            logo.addSubview(tile)
        }
        readyLabel.text = text("Ready?", "准备好了吗？")
        goButton.title = text("Let's go!", "开始！")
        goButton.action = { [weak self] in self?.start() }
        [logo, readyLabel, readyCaption, goButton].forEach(startPage.addSubview)

        // Game page.
        undoButton.title = text("Undo", "撤销")
        undoButton.action = { [weak self] in self?.undo() }
        newGameButton.title = text("New game", "新游戏")
        newGameButton.action = { [weak self] in self?.newGame() }
        hintLabel.text = text("Swipe or use the arrow keys", "滑动或使用方向键")
        hintLabel.wraps = true
        practiceBadge.text = text("Practice", "练习模式")
        [board, scoreBox, bestBox, undoButton, newGameButton, hintLabel, practiceBadge].forEach(gamePage.addSubview)

        // Settings page: board size, and the practice buttons of the original demo.
        sizeTitle.text = text("Board size", "棋盘大小")
        for size in Game2048Model.sizes {
            let button = Button("\(size)×\(size)", kind: .secondary)
            button.action = { [weak self] in self?.chooseSize(size) }
            sizeButtons.append(button)
        }
        practiceTitle.text = text("Practice", "练习")
        practiceNote.text = text("Clear the board or drop in a tile. Practice games set no best score.",
                                 "清空棋盘或添加方块。练习局不计最高分。")
        resetButton.title = text("Clear board", "清空棋盘")
        resetButton.action = { [weak self] in self?.practiceReset() }
        spawnButton.title = text("Add a tile", "添加方块")
        spawnButton.action = { [weak self] in self?.practiceSpawn() }
        ([sizeTitle, practiceTitle, practiceNote, resetButton, spawnButton] + sizeButtons).forEach(settingsPage.addSubview)

        // Colour page.
        themeTitle.text = text("Background colour", "背景颜色")
        themePage.addSubview(themeTitle)
        for (i, theme) in BackgroundTheme.all.enumerated() {
            let swatch = SwatchButton(name: language == .chinese ? theme.chinese : theme.english, color: theme.color, ink: theme.ink)
            swatch.action = { [weak self] in self?.chooseTheme(i) }
            swatches.append(swatch)
            themePage.addSubview(swatch)
        }

        [startPage, gamePage, settingsPage, themePage, tabs, homeButton].forEach(addSubview)
        applyTheme()
        refreshLabels()
        updateVisibility()
    }

    // MARK: - Layout

    public override func layout() {
        finishBoardAnimations()
        let w = size.width, h = size.height
        let margin = 16.0
        homeButton.frame = Rect(margin, margin, 56, 56)
        tabs.frame = Rect(margin + 72, margin, w - 2 * margin - 72, 56)
        // Narrow screens show the tab names without their icons, so the names fit.
        for (button, icon) in zip(tabs.tabs, Self.tabIcons) { button.icon = w < 640 ? nil : icon }
        let top = margin + 56 + 16
        let content = Rect(margin, top, w - 2 * margin, h - top - margin)
        for page in [gamePage, settingsPage, themePage] { page.frame = content }
        startPage.frame = Rect(0, 0, w, h)
        endPanel?.layout(in: size)

        layoutStart(w: w, h: h)
        layoutGame(content.size)
        layoutSettings(content.size)
        layoutTheme(content.size)
        syncTiles()
    }

    private func layoutStart(w: Double, h: Double) {
        let tile = min(96, (w - 120) / 4 - 12)
        logo.frame = Rect(center: Point(w / 2, h * 0.32), size: Size(tile * 4 + 14 * 3, tile))
        for (i, view) in logo.subviews.enumerated() {
            view.frame = Rect(Double(i) * (tile + 14), 0, tile, tile)
        }
        readyLabel.frame = Rect(0, logo.frame.maxY + 22, w, 56)
        readyCaption.frame = Rect(0, readyLabel.frame.maxY, w, 34)
        goButton.frame = Rect(center: Point(w / 2, readyCaption.frame.maxY + 52), size: Size(240, 68))
    }

    private func layoutGame(_ area: Size) {
        if area.width >= area.height {
            // Landscape: the board on the left, scores and buttons in a column on the right.
            let side = min(area.height, area.width - 260)
            let panelWidth = min(260, area.width - side - 24)
            let left = (area.width - side - 24 - panelWidth) / 2
            board.frame = Rect(left, (area.height - side) / 2, side, side)
            let x = board.frame.maxX + 24
            let boxWidth = (panelWidth - 12) / 2
            scoreBox.frame = Rect(x, board.frame.minY, boxWidth, 76)
            bestBox.frame = Rect(x + boxWidth + 12, board.frame.minY, boxWidth, 76)
            undoButton.frame = Rect(x, scoreBox.frame.maxY + 20, panelWidth, 60)
            newGameButton.frame = Rect(x, undoButton.frame.maxY + 14, panelWidth, 60)
            practiceBadge.frame = Rect(x, newGameButton.frame.maxY + 12, panelWidth, 26)
            hintLabel.frame = Rect(x, board.frame.maxY - 52, panelWidth, 52)
        } else {
            // Portrait: scores above the board, buttons below it, the block centred.
            let chrome = 76.0 + 16 + 16 + 60 + 30
            let side = min(area.width, area.height - chrome)
            let x = (area.width - side) / 2
            let y = max(0, (area.height - chrome - side) / 2)
            let boxWidth = (side - 12) / 2
            scoreBox.frame = Rect(x, y, boxWidth, 76)
            bestBox.frame = Rect(x + boxWidth + 12, y, boxWidth, 76)
            board.frame = Rect(x, y + 92, side, side)
            undoButton.frame = Rect(x, board.frame.maxY + 16, boxWidth, 60)
            newGameButton.frame = Rect(x + boxWidth + 12, board.frame.maxY + 16, boxWidth, 60)
            practiceBadge.frame = Rect(x, newGameButton.frame.maxY + 4, side, 26)
            hintLabel.frame = Rect(x, newGameButton.frame.maxY + 4, side, 30)
        }
    }

    private func layoutSettings(_ area: Size) {
        let columns = area.width >= area.height ? 6 : 3
        sizeTitle.frame = Rect(8, 0, area.width - 16, 44)
        let rows = (sizeButtons.count + columns - 1) / columns
        let grid = GridLayout(columns: columns, rows: rows, spacing: 12)
            .frames(in: Rect(8, 52, area.width - 16, Double(rows) * 64 + Double(rows - 1) * 12))
        for (button, frame) in zip(sizeButtons, grid) { button.frame = frame }
        let y = (grid.last?.maxY ?? 100) + 28
        practiceTitle.frame = Rect(8, y, area.width - 16, 44)
        practiceNote.frame = Rect(8, y + 44, area.width - 16, 48)
        let bw = min(280, (area.width - 16 - 12) / 2)
        resetButton.frame = Rect(8, y + 100, bw, 60)
        spawnButton.frame = Rect(8 + bw + 12, y + 100, bw, 60)
    }

    private func layoutTheme(_ area: Size) {
        themeTitle.frame = Rect(8, 0, area.width - 16, 44)
        let columns = area.width >= area.height ? 6 : 4
        let rows = (swatches.count + columns - 1) / columns
        let frames = GridLayout(columns: columns, rows: rows, spacing: 10)
            .frames(in: Rect(8, 52, area.width - 16, min(area.height - 56, Double(rows) * 96)))
        for (swatch, frame) in zip(swatches, frames) { swatch.frame = frame }
    }

    // MARK: - Pages

    private func updateVisibility() {
        let playing = started
        startPage.isHidden = playing
        tabs.isHidden = !playing || isAutoplaying
        gamePage.isHidden = !playing || selectedTab != 0
        settingsPage.isHidden = !playing || selectedTab != 1
        themePage.isHidden = !playing || selectedTab != 2
        if !playing { focus(goButton) }
    }

    private func showTab(_ index: Int) {
        finishBoardAnimations()
        selectedTab = index
        if tabs.selectedIndex != index { tabs.selectedIndex = index }
        updateVisibility()
        // Back on the board, the arrows belong to the tiles again.
        if index == 0 { focus(nil) }
    }

    /// The "ready?" confirmation: play begins.
    func start() {
        started = true
        showTab(0)
    }

    // MARK: - Moves

    public override func handleSwipe(_ direction: SwipeDirection) -> Bool {
        guard canTakeMoves else { return false }
        move(Direction(direction))
        return true
    }

    /// On the game tab the arrows move the tiles. Confirm lifts the focus onto the buttons
    /// (and from there to the tabs), where arrows move the focus; back returns to the tiles.
    public override func handleKey(_ key: Key) -> Bool {
        guard canTakeMoves else { return false }
        if let focused = focusedView, focused.isVisibleInTree {
            guard key == .back else { return false }
            focus(nil)
            return true
        }
        switch key {
        case .up: move(.up)
        case .down: move(.down)
        case .left: move(.left)
        case .right: move(.right)
        case .confirm, .start, .digit1: focus(undoButton.isEnabled ? undoButton : newGameButton)
        default: return false
        }
        return true
    }

    private var canTakeMoves: Bool {
        started && selectedTab == 0 && !isAutoplaying && endPanel == nil
    }

    /// Applies a move; a slide still running is finished first so this one starts clean.
    func move(_ direction: Direction) {
        finishBoardAnimations()
        let record = model.move(direction)
        guard record.changed else { return }
        animate(record)
        refreshLabels()
        if !record.merges.isEmpty { sound.play(.tileMerge, gain: 0.8, pan: 0) }
        if record.won {
            sound.play(.win)
            if isAutoplaying { model.keepGoing() } else { showWin() }
        } else if record.gameOver {
            sound.play(.gameOver)
            if !isAutoplaying { showGameOver() }
            if !isPractice { reportResult(model.score, variantKey: Self.bestKey(model.size)) }
        }
    }

    private func undo() {
        finishBoardAnimations()
        guard model.undo() else { return }
        syncTiles()
        refreshLabels()
    }

    func newGame() {
        finishBoardAnimations()
        model = Game2048Model(checkedSize: boardSize, seed: seeds.next())
        isPractice = false
        rebuildTiles()
        refreshLabels()
    }

    /// Plays on from a given position (tests and demonstrations).
    func load(_ position: Game2048Model) {
        finishBoardAnimations()
        model = position
        rebuildTiles()
        refreshLabels()
    }

    private func chooseSize(_ size: Int) {
        guard Game2048Model.sizes.contains(size), size != boardSize else { return }
        boardSize = size
        storage.setInteger(Self.keys.setting("size"), size)
        newGame()
    }

    /// Picking a colour applies it, saves it and goes back to the board (as the original did).
    private func chooseTheme(_ index: Int) {
        guard BackgroundTheme.all.indices.contains(index) else { return }
        themeIndex = index
        storage.setString(Self.keys.setting("theme"), BackgroundTheme.all[index].key)
        applyTheme()
        refreshLabels()
        showTab(0)
    }

    private func practiceReset() {
        finishBoardAnimations()
        isPractice = true
        model = (try? Game2048Model(rows: Array(repeating: Array(repeating: 0, count: boardSize), count: boardSize),
                                    seed: seeds.next())) ?? model
        rebuildTiles()
        refreshLabels()
    }

    private func practiceSpawn() {
        finishBoardAnimations()
        isPractice = true
        if model.phase == .over { return }
        guard let spawn = model.spawn() else { return }
        var record = MoveRecord(direction: nil)
        record.spawn = spawn
        record.changed = true
        animate(record, slide: 0)
        refreshLabels()
        if model.phase == .over { showGameOver() }
    }

    // MARK: - Panels

    private func showWin() {
        let panel = EndOfGamePanel(
            emoji: "🏆", title: text("You made 2048!", "你拼出了 2048！"),
            headline: text("Score \(model.score)", "得分 \(model.score)"),
            lines: [text("Keep going for a bigger tile?", "继续挑战更大的方块？")],
            choices: [.init(text("Keep going", "继续"), icon: "▶️") { [weak self] in self?.keepGoing() },
                      .init(text("New game", "新游戏"), icon: "🔄") { [weak self] in self?.newGame() }])
        panel.onBack = { [weak self] in self?.dismissEndPanel(); self?.keepGoing() }
        present(panel)
    }

    /// The back key takes the panel away to show the board that ended.
    private func showGameOver() {
        let panel = EndOfGamePanel(
            emoji: "🔢", title: text("Game over", "游戏结束"),
            headline: text("Score \(model.score)", "得分 \(model.score)"),
            lines: [text("No moves left.", "无路可走了。")],
            choices: [.init(text("Try again", "再来一局"), icon: "🔄") { [weak self] in self?.newGame() },
                      .init(text("Undo", "撤销"), icon: "↩️") { [weak self] in self?.undo() }])
        panel.onBack = { [weak self] in self?.dismissEndPanel() }
        present(panel)
    }

    private func keepGoing() {
        model.keepGoing()
        if model.phase == .over { showGameOver() }
    }

    // MARK: - Tiles

    private func cellFrame(_ position: Position) -> Rect { board.cellRect(position) }

    private func makeTile(id: Int, value: Int, at position: Position) -> TileView {
        let view = TileView(value: value, frame: cellFrame(position))
        tileViews[id] = view
        board.addSubview(view)
        return view
    }

    /// Puts a view for every tile at its cell and removes the rest.
    private func syncTiles() {
        var live = Set<Int>()
        for placed in model.tiles {
            live.insert(placed.tile.id)
            if let view = tileViews[placed.tile.id] {
                view.frame = cellFrame(placed.position)
                view.value = placed.tile.value
                view.scale = 1
                view.alpha = 1
            } else {
                _ = makeTile(id: placed.tile.id, value: placed.tile.value, at: placed.position)
            }
        }
        for (id, view) in tileViews where !live.contains(id) {
            view.removeFromSuperview()
            tileViews[id] = nil
        }
    }

    private func rebuildTiles() {
        board.size = model.size
        board.removeAllSubviews()
        tileViews = [:]
        syncTiles()
    }

    /// Slides, then merged tiles pop and the new tile grows in.
    private func animate(_ record: MoveRecord, slide: Double = Game2048Scene.slideDuration) {
        for s in record.slides {
            guard let view = tileViews[s.id] else { continue }
            let from = cellFrame(s.from), to = cellFrame(s.to)
            let tween = animator.tween(duration: slide, easing: .easeOut) { t in
                view.frame = t >= 1 ? to : Rect(lerp(from.x, to.x, t), lerp(from.y, to.y, t), to.width, to.height)
            }
            if s.mergesAway {
                tween.onComplete { [weak self] in
                    view.removeFromSuperview()
                    if self?.tileViews[s.id] === view { self?.tileViews[s.id] = nil }
                }
            }
            boardTweens.append(tween)
        }
        for merge in record.merges {
            let view = makeTile(id: merge.id, value: merge.value, at: merge.at)
            view.alpha = 0
            boardTweens.append(animator.tween(duration: Self.popDuration, delay: slide, easing: .linear) { t in
                view.alpha = 1
                view.scale = 1 + 0.2 * sin(Double.pi * t)
            })
        }
        if let spawn = record.spawn {
            let view = makeTile(id: spawn.id, value: spawn.value, at: spawn.at)
            view.alpha = 0
            view.scale = 0.1
            boardTweens.append(animator.tween(duration: Self.popDuration, delay: slide, easing: .easeOut) { t in
                view.alpha = 1
                view.scale = lerp(0.1, 1, t)
            })
        }
    }

    /// Jumps every running board animation to its end.
    private func finishBoardAnimations() {
        let running = boardTweens
        boardTweens = []
        for tween in running where !tween.isFinished && !tween.isCancelled {
            tween.finish()
            // finish() completes it; cancel() stops the animator from stepping it again.
            tween.cancel()
        }
    }

    private func refreshLabels() {
        scoreBox.value = String(model.score)
        let key = Self.bestKey(model.size)
        let best = (isPractice ? storage.integer(key) : recordBest(model.score, variantKey: key)) ?? 0
        bestBox.value = String(max(best, isAutoplaying || isPractice ? 0 : model.score))
        undoButton.isEnabled = model.canUndo
        practiceBadge.isHidden = !isPractice
        hintLabel.isHidden = isPractice && size.width < size.height
        readyCaption.text = text("\(boardSize)×\(boardSize) board · best \(best)", "\(boardSize)×\(boardSize) 棋盘 · 最高 \(best)")
        for (i, button) in sizeButtons.enumerated() {
            let kind: Button.Kind = Game2048Model.sizes.lowerBound + i == boardSize ? .primary : .secondary
            if button.kind != kind { button.kind = kind }
        }
        for (i, swatch) in swatches.enumerated() { swatch.isChosen = i == themeIndex }
    }

    // MARK: - Frames and the kiosk

    public override var isLive: Bool { isAutoplaying }

    public override func update(dt: Double) {
        boardTweens.removeAll { $0.isFinished || $0.isCancelled }
        guard isAutoplaying else { return }
        if model.phase == .over {
            if autoplayPace.restartDue(after: dt) { newGame() }
            return
        }
        guard autoplayPace.moveDue(after: dt) else { return }
        if let direction = autoplayer.bestMove(for: model) { move(direction) }
    }

    public override func willDisappear() {
        finishBoardAnimations()
        super.willDisappear()
    }

    /// Best scores are written as they are made (`refreshLabels`); the chosen size and
    /// colour when chosen. A pause stops the slides where they would end.
    public override func gameDidPause() {
        finishBoardAnimations()
    }
}

extension Direction {
    init(_ swipe: SwipeDirection) {
        switch swipe {
        case .up: self = .up
        case .down: self = .down
        case .left: self = .left
        case .right: self = .right
        }
    }
}

/// A big digit tile for the start screen's "2048" logo.
final class LogoTile: View {
    let digit: Int
    let fill: Color
    let textColor: Color

    init(digit: Int, fill: Color, textColor: Color) {
        self.digit = digit
        self.fill = fill
        self.textColor = textColor
        super.init(frame: .zero)
        visualOutset = Shadow.standard.reach
    }

    override func draw(_ canvas: Canvas) {
        canvas.fillRoundedRect(bounds, radius: Theme.radius, fill, shadow: .standard)
        canvas.drawText(String(digit), in: bounds,
                        style: TextStyle(size: bounds.height * 0.6, weight: .bold, color: textColor),
                        fonts: UIEnvironment.fonts, wrap: false)
    }
}
