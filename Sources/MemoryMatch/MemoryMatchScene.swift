import GameCore
import Audio
import Graphics
import Input
import UI

#if canImport(Glibc)
import Glibc
#endif

/// Memory Match on the kiosk: a start screen (grid size, picture theme, best, PLAY), then
/// the cards; a tap turns one, pairs stay open, a mismatch shows a moment and turns back,
/// and the last pair brings the "play again?" panel.
public final class MemoryMatchScene: GameScene {
    static let flipDuration = 0.24
    /// The end-of-game panel waits for the last pair's flip and glow.
    static let endDelay = 0.6

    public override var isAutoplaying: Bool {
        didSet {
            guard isAutoplaying != oldValue else { return }
            dismissEndPanel()
            if isAutoplaying {
                autoplayer = MemoryMatchAutoplayer(seed: seeds.next())
                autoplayPace.reset()
                play()
            }
        }
    }

    private var seeds: SeededRandom
    private(set) var model: MemoryMatchModel
    private var themeIndex: Int
    private var autoplayer: MemoryMatchAutoplayer
    /// Attract mode: a card every 0.7 s, a pause on a finished grid.
    private var autoplayPace = AutoplayPace(interval: 0.7)
    private var endClock: Double?
    private(set) var cardViews: [CardView] = []
    private(set) var showingGrid = false

    // Views
    private let startPage = View()
    private let titleLabel = Label("", style: Theme.title)
    private let showcase = View()
    private let gridTitle = Label("", style: Theme.caption.with(weight: .bold))
    private var gridButtons: [Button] = []
    private let themeTitle = Label("", style: Theme.caption.with(weight: .bold))
    private var themeButtons: [Button] = []
    private let startBest = Label("", style: Theme.body.with(color: Theme.textDim))
    private let playButton = Button("", icon: "▶️")
    private let gamePage = View()
    private let grid = View()
    private let movesStat: StatBox
    private let timeStat: StatBox
    private let bestStat: StatBox
    private let restartButton = Button("", kind: .secondary)

    public init(_ context: GameContext) {
        let storage = context.storage
        seeds = SeededRandom(seed: context.seed)
        let savedGrid = Self.savedGrid(storage)
        let savedTheme = storage.string(Self.keys.setting("theme"))
        themeIndex = CardTheme.all.firstIndex { $0.key == savedTheme } ?? 0
        model = MemoryMatchModel(grid: savedGrid, seed: seeds.next())
        autoplayer = MemoryMatchAutoplayer(seed: seeds.next())
        let zh = context.language == .chinese
        movesStat = StatBox(title: zh ? "步数" : "Moves", valueSize: 28)
        timeStat = StatBox(title: zh ? "时间" : "Time", valueSize: 28)
        bestStat = StatBox(title: zh ? "最佳" : "Best", valueSize: 28)
        super.init(context, game: .memoryMatch)
        build()
    }

    static let keys = StorageKeys(namespace: "memory")

    /// Fewest moves are kept per grid ("memory.best.4x4").
    static func bestKey(_ grid: GridSize) -> String { keys.best(grid.rawValue) }

    /// The grid the player last chose (4x4 when none).
    static func savedGrid(_ storage: GameStorage) -> GridSize {
        storage.string(keys.setting("grid")).flatMap(GridSize.init(rawValue:)) ?? .fourByFour
    }

    private var theme: CardTheme { CardTheme.all[themeIndex] }

    // MARK: - Building

    private func build() {
        backgroundColor = Theme.background

        titleLabel.text = text("Memory Match", "记忆翻牌")
        gridTitle.text = text("CARDS", "牌数")
        for size in GridSize.allCases {
            let button = Button(size.rawValue.replacingX, kind: .secondary)
            button.action = { [weak self] in self?.chooseGrid(size) }
            gridButtons.append(button)
        }
        themeTitle.text = text("PICTURES", "图案")
        for (i, t) in CardTheme.all.enumerated() {
            let button = Button(language == .chinese ? t.chinese : t.english, icon: t.faces[0], kind: .secondary)
            button.action = { [weak self] in self?.chooseTheme(i) }
            themeButtons.append(button)
        }
        playButton.title = text("PLAY", "开始")
        playButton.action = { [weak self] in self?.play() }
        ([titleLabel, showcase, gridTitle, themeTitle, startBest, playButton] + gridButtons + themeButtons)
            .forEach(startPage.addSubview)

        restartButton.title = text("New deal", "重新发牌")
        restartButton.action = { [weak self] in self?.play() }
        [grid, movesStat, timeStat, bestStat, restartButton].forEach(gamePage.addSubview)

        [startPage, gamePage, homeButton].forEach(addSubview)
        rebuildCards()
        refresh()
        updatePages()
    }

    private func rebuildCards() {
        grid.removeAllSubviews()
        cardViews = model.cards.enumerated().map { index, card in
            let view = CardView(index: index, face: theme.faces[card.face % theme.faces.count])
            view.onTap = { [weak self] i in self?.tapCard(i) }
            view.turn = card.state == .faceDown ? 0 : 1
            view.isMatched = card.state == .matched
            grid.addSubview(view)
            return view
        }
        showcase.removeAllSubviews()
        for face in theme.faces.prefix(4) {
            let card = CardView(index: -1, face: face)
            card.turn = 1
            card.isUserInteractionEnabled = false
            showcase.addSubview(card)
        }
        if size.width > 0 { layout() }
    }

    // MARK: - Layout

    public override func layout() {
        let w = size.width, h = size.height, margin = 16.0
        homeButton.frame = Rect(margin, margin, 56, 56)
        startPage.frame = Rect(0, 0, w, h)
        gamePage.frame = Rect(0, 0, w, h)
        endPanel?.layout(in: size)

        // Start page: title, a row of sample cards, the two choices and PLAY; on a tall
        // screen the whole block is centred vertically.
        let landscape = w >= h
        let card = min(84, max(40, h * 0.16))
        let themeColumns = landscape ? themeButtons.count : 2
        let themeRows = (themeButtons.count + themeColumns - 1) / themeColumns
        let themeHeight = Double(themeRows) * 52 + Double(themeRows - 1) * 10
        let blockHeight = 56 + 12 + card + 36 + 112 + themeHeight + 120
        var y = landscape ? margin : max(margin + 56, (h - blockHeight) / 2)
        titleLabel.frame = Rect(margin + 56, y, w - 2 * (margin + 56), 56)
        y += 56 + 12
        showcase.frame = Rect(center: Point(w / 2, y + card / 2), size: Size(card * 4 + 14 * 3, card))
        for (i, v) in showcase.subviews.enumerated() {
            v.frame = Rect(Double(i) * (card + 14), 0, card, card)
        }
        let optionsTop = showcase.frame.maxY + (landscape ? 16 : 36)
        let columnWidth = min(landscape ? 680 : 560, w - 2 * margin)
        let x0 = (w - columnWidth) / 2
        gridTitle.frame = Rect(x0, optionsTop, columnWidth, 22)
        let gridFrames = GridLayout(columns: gridButtons.count, rows: 1, spacing: 10)
            .frames(in: Rect(x0, optionsTop + 24, columnWidth, 52))
        for (b, f) in zip(gridButtons, gridFrames) { b.frame = f }
        themeTitle.frame = Rect(x0, optionsTop + 88, columnWidth, 22)
        let themeFrames = GridLayout(columns: themeColumns, rows: themeRows, spacing: 10)
            .frames(in: Rect(x0, optionsTop + 112, columnWidth, themeHeight))
        for (b, f) in zip(themeButtons, themeFrames) { b.frame = f }
        let belowThemes = themeFrames.last?.maxY ?? optionsTop + 164
        if landscape {
            startBest.frame = Rect(x0, belowThemes + 14, columnWidth / 2, 60)
            playButton.frame = Rect(x0 + columnWidth - 240, belowThemes + 14, 240, 60)
        } else {
            startBest.frame = Rect(x0, belowThemes + 20, columnWidth, 32)
            playButton.frame = Rect(center: Point(w / 2, belowThemes + 100), size: Size(240, 68))
        }

        // Game page: stats and restart beside (landscape) or above (portrait) the grid.
        if landscape {
            let panel = 170.0
            let x = w - margin - panel
            movesStat.frame = Rect(x, margin, panel, 70)
            timeStat.frame = Rect(x, margin + 82, panel, 70)
            bestStat.frame = Rect(x, margin + 164, panel, 70)
            restartButton.frame = Rect(x, h - margin - 60, panel, 60)
            let left = margin + 56 + 16
            grid.frame = Rect(left, margin, x - 16 - left, h - 2 * margin)
        } else {
            // Portrait: stats, the grid and the button as one block, centred vertically.
            let sw = (w - 2 * margin - 20) / 3
            let gridWidth = w - 2 * margin
            let columns = Double(min(model.grid.rows, model.grid.columns))
            let rows = Double(max(model.grid.rows, model.grid.columns))
            let spacing = max(6, gridWidth * 0.025)
            let cell = (gridWidth - spacing * (columns - 1)) / columns
            let top = margin + 56 + 12
            let available = h - top - margin - 66 - 16 - 16 - 60
            let gridHeight = min(available, rows * cell + (rows - 1) * spacing)
            let y = top + max(0, (available - gridHeight) / 2)
            movesStat.frame = Rect(margin, y, sw, 66)
            timeStat.frame = Rect(margin + sw + 10, y, sw, 66)
            bestStat.frame = Rect(margin + 2 * (sw + 10), y, sw, 66)
            grid.frame = Rect(margin, y + 66 + 16, gridWidth, gridHeight)
            restartButton.frame = Rect(center: Point(w / 2, grid.frame.maxY + 16 + 30), size: Size(220, 60))
        }
        layoutCards()
    }

    /// Square cards in the grid; on a portrait screen a wide grid turns to stand upright.
    private func layoutCards() {
        guard grid.frame.width > 0 else { return }
        let transposed = size.height > size.width && model.grid.columns > model.grid.rows
        let columns = transposed ? model.grid.rows : model.grid.columns
        let rows = transposed ? model.grid.columns : model.grid.rows
        let spacing = max(6, min(grid.frame.width, grid.frame.height) * 0.025)
        let frames = GridLayout(columns: columns, rows: rows, spacing: spacing)
            .frames(in: grid.bounds, square: true)
        for (i, view) in cardViews.enumerated() {
            let row = i / model.grid.columns, column = i % model.grid.columns
            let slot = transposed ? column * columns + row : row * columns + column
            view.frame = frames[slot]
        }
    }

    private func updatePages() {
        startPage.isHidden = showingGrid
        gamePage.isHidden = !showingGrid
        if !showingGrid { focus(playButton) }
    }

    // MARK: - Choices

    private func chooseGrid(_ size: GridSize) {
        guard size != model.grid else { return }
        storage.setString(Self.keys.setting("grid"), size.rawValue)
        model = MemoryMatchModel(grid: size, seed: seeds.next())
        rebuildCards()
        refresh()
    }

    private func chooseTheme(_ index: Int) {
        guard CardTheme.all.indices.contains(index), index != themeIndex else { return }
        themeIndex = index
        storage.setString(Self.keys.setting("theme"), theme.key)
        rebuildCards()
        refresh()
    }

    // MARK: - Play

    /// PLAY (and "yes" to play again): a fresh deal, the grid revealed, the clock started.
    func play() {
        dismissEndPanel()
        endClock = nil
        if model.phase != .ready { model.restart() }
        rebuildCards()
        model.play(now: now)
        showingGrid = true
        updatePages()
        refresh()
        // The cards deal in: each grows from nothing, a few milliseconds after the last.
        for (i, view) in cardViews.enumerated() {
            view.scale = 0.01
            animator.tween(duration: Theme.normal, delay: Double(i) * 0.015, easing: .backOut) { t in
                view.scale = max(0.01, t)
            }
        }
        focus(nil)
    }

    /// The first arrow or confirm on a fresh grid puts the focus on the first card rather
    /// than the home button, so a stick player starts on the cards.
    public override func handleKey(_ key: Key) -> Bool {
        guard showingGrid, !isAutoplaying, endPanel == nil, let first = cardViews.first else { return false }
        let onCard = cardViews.contains { $0 === focusedView }
        guard !onCard, focusedView == nil || focusedView?.isVisibleInTree == false else { return false }
        switch key {
        case .up, .down, .left, .right, .confirm, .start, .digit1:
            focus(first)
            return true
        default:
            return false
        }
    }

    func tapCard(_ index: Int) {
        guard showingGrid, endPanel == nil else { return }
        handle(model.tap(index, now: now))
    }

    private func handle(_ events: [MemoryMatchEvent]) {
        for event in events {
            switch event {
            case .flippedUp(let i):
                sound.play(.cardFlip, gain: 0.7, pan: pan(i))
                turn(i, to: 1)
                cardViews[i].isWrong = false
            case .flippedDown(let i):
                cardViews[i].isWrong = false
                turn(i, to: 0)
            case .matched(let a, let b):
                sound.play(.match)
                for i in [a, b] {
                    let view = cardViews[i]
                    view.isMatched = true
                    animator.tween(duration: 0.3, delay: Self.flipDuration, easing: .linear) { t in
                        view.scale = 1 + 0.12 * sin(Double.pi * t)
                    }
                }
            case .mismatched(let a, let b, _):
                sound.play(.mismatch, gain: 0.8, pan: 0)
                cardViews[a].isWrong = true
                cardViews[b].isWrong = true
            case .won:
                sound.play(.win)
                endClock = 0
                reportResult(model.moves, variantKey: Self.bestKey(model.grid))
            }
        }
        if isAutoplaying { autoplayer.observe(model) }
        refresh()
    }

    private func turn(_ index: Int, to target: Double) {
        let view = cardViews[index]
        let start = view.turn
        animator.tween(duration: Self.flipDuration, easing: .easeInOut) { t in
            view.turn = lerp(start, target, t)
        }
    }

    private func pan(_ index: Int) -> Float {
        let columns = max(1, model.grid.columns - 1)
        return Float(Double(index % model.grid.columns) / Double(columns) * 1.2 - 0.6)
    }

    /// The back key answers "no".
    private func showPlayAgain() {
        let time = clockText(model.elapsed(now: now))
        let best = storage.integer(Self.bestKey(model.grid)) ?? model.moves
        let panel = EndOfGamePanel(
            emoji: "🎉", title: text("Play again?", "再玩一次？"),
            headline: text("\(model.moves) moves", "\(model.moves) 步"),
            lines: [text("All pairs found in \(time).", "用了 \(time) 找到全部配对。"),
                    text("Best \(best) moves", "最佳 \(best) 步")],
            choices: [.init(text("Yes", "好"), icon: "🔄") { [weak self] in self?.play() },
                      .init(text("No", "不了")) { [weak self] in self?.backToStart() }])
        panel.onBack = { [weak self] in self?.backToStart() }
        present(panel)
    }

    private func backToStart() {
        dismissEndPanel()
        model.restart()
        showingGrid = false
        rebuildCards()
        refresh()
        updatePages()
    }

    private func refresh() {
        movesStat.value = String(model.moves)
        timeStat.value = clockText(model.elapsed(now: now))
        let best = storage.integer(Self.bestKey(model.grid))
        bestStat.value = best.map(String.init) ?? "–"
        startBest.text = best.map { text("Best for \(model.grid.rawValue.replacingX): \($0) moves", "\(model.grid.rawValue.replacingX) 最佳：\($0) 步") }
            ?? text("No best yet for \(model.grid.rawValue.replacingX)", "\(model.grid.rawValue.replacingX) 还没有记录")
        for (size, button) in zip(GridSize.allCases, gridButtons) {
            let kind: Button.Kind = size == model.grid ? .primary : .secondary
            if button.kind != kind { button.kind = kind }
        }
        for (i, button) in themeButtons.enumerated() {
            let kind: Button.Kind = i == themeIndex ? .primary : .secondary
            if button.kind != kind { button.kind = kind }
        }
    }

    // MARK: - Frames and the kiosk

    /// The clock ticks while a game runs; the attract mode taps by itself.
    public override var isLive: Bool { (showingGrid && model.phase == .playing) || isAutoplaying }

    public override func update(dt: Double) {
        if showingGrid {
            let events = model.update(now: now)
            if !events.isEmpty { handle(events) }
            timeStat.value = clockText(model.elapsed(now: now))
        }
        if let clock = endClock {
            endClock = clock + dt
            let delay = isAutoplaying ? autoplayPace.restartDelay : Self.endDelay
            if clock + dt >= delay {
                endClock = nil
                if isAutoplaying { play() } else { showPlayAgain() }
            }
            return
        }
        guard isAutoplaying, showingGrid, model.phase == .playing else { return }
        // Like a person, wait for a wrong pair to turn back before the next card.
        guard model.mismatch == nil, autoplayPace.moveDue(after: dt) else { return }
        if let index = autoplayer.nextTap(in: model) { handle(model.tap(index, now: now)) }
    }

    /// The clock and a showing mismatch's deadline stop while the player is away; the
    /// best is written when a grid is finished (`reportResult`).
    public override func gameDidPause() { model.pause(now: now) }
    public override func gameDidResume() { model.resume(now: now) }
}

extension String {
    /// "4x5" as "4×5" for display.
    var replacingX: String { String(map { $0 == "x" ? "×" : $0 }) }
}
