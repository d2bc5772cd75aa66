import Audio
import Graphics
import Input
import Platform
import UI

#if canImport(Glibc)
import Glibc
#endif

/// Guess Picture (超级猜图) on screen: the picture, its category, "n/10" and the question's
/// clock, the score, one slot per answer character, 21 option buttons in 7 columns, and
/// hint / big picture / next. A play is a round of ten questions, each on a 45 s clock;
/// then the results, and the kiosk's initials when the score makes the table. The rules
/// live in `GuessPictureModel`; this view feeds it taps and time.
public final class GuessPictureScene: GameScene {
    public override var isAutoplaying: Bool {
        didSet { if isAutoplaying != oldValue { autoplayer = GuessPictureAutoplayer(seed: seed &+ 7) } }
    }

    /// The pack being played (nil when no valid pack was found).
    let pack: QuestionPack?
    /// Why packs were skipped, for the log and the "no packs" screen.
    let packErrors: [PackError]
    private(set) var game: GuessPictureModel
    private var autoplayer: GuessPictureAutoplayer
    private(set) var best: Int

    let topBar = View()
    let titleLabel = Label("", style: Theme.heading)
    let progressLabel = Label("", style: Theme.body.with(color: Theme.textDim, alignment: .right))
    let scoreLabel = Label("", style: Theme.heading.with(color: Theme.accent, alignment: .right))
    let pictureCard = PictureCard()
    let hintButton: Button
    let bigButton: Button
    let nextButton: Button
    let slotRow = View()
    private(set) var slotViews: [SlotView] = []
    private(set) var optionButtons: [Button] = []
    private var bigPicture: BigPictureOverlay?
    private let emptyLabel = Label("", style: Theme.body.with(color: Theme.textDim))
    private var shownIndex = -1

    /// Packs are read from `<data_dir>/packs`; the kiosk's language picks one.
    public init(_ context: GameContext) {
        let fonts = UIEnvironment.fonts
        let loaded = QuestionPack.loadAll(directory: context.dataDirectory + "/packs") { picture in
            guard let scalar = picture.unicodeScalars.first else { return false }
            // Asked of the font, not rendered: rendering every pack picture would fill the
            // picture cache with pictures no one sees yet, each time a scene is made.
            return fonts.hasEmoji(scalar)
        }
        for error in loaded.errors { Log.warning("guess picture: skipped \(error)") }
        packErrors = loaded.errors
        pack = QuestionPack.pick(loaded.packs, language: context.language.rawValue)
        var rules = GuessPictureRules()
        rules.shufflesQuestions = true
        game = GuessPictureModel(questions: pack?.questions ?? [], seed: context.seed, rules: rules)
        autoplayer = GuessPictureAutoplayer(seed: context.seed &+ 7)
        best = 0
        hintButton = Button("", icon: "💡", kind: .secondary)
        bigButton = Button("", icon: "🔍", kind: .secondary)
        nextButton = Button("", icon: "⏭", kind: .secondary)
        super.init(context, game: .guessPicture)
        best = storage.integer(bestKey) ?? 0
        backgroundColor = Theme.background

        bigButton.title = text("Zoom", "大图")
        nextButton.title = text("Next", "下一题")
        for button in [hintButton, bigButton, nextButton] {
            button.textStyle = Theme.button.with(size: 18, color: Theme.text)
        }
        hintButton.action = { [weak self] in self?.takeHint() }
        bigButton.action = { [weak self] in self?.showBigPicture() }
        nextButton.action = { [weak self] in self?.skip() }
        pictureCard.onTap = { [weak self] in self?.showBigPicture() }
        titleLabel.shrinksToFit = true
        scoreLabel.shrinksToFit = true

        topBar.backgroundColor = Theme.surface
        addSubview(topBar)
        [homeButton, titleLabel, progressLabel, scoreLabel].forEach(topBar.addSubview)
        [pictureCard, hintButton, bigButton, nextButton, slotRow, emptyLabel].forEach(addSubview)
        for index in 0..<Question.optionCount {
            let button = Button("", kind: .secondary)
            button.textStyle = Theme.heading.with(size: 26, color: Theme.text)
            button.action = { [weak self] in self?.tapOption(index) }
            optionButtons.append(button)
            addSubview(button)
        }
        if pack == nil {
            emptyLabel.text = text("No question packs found", "没有找到题库")
                + (packErrors.first.map { "\n\($0)" } ?? "")
        }
        emptyLabel.isHidden = pack != nil
        syncQuestion()
    }

    /// Best scores are kept per pack language (the packs differ), for a round.
    static func bestKey(packLanguage: String) -> String { StorageKeys(namespace: "guess").best(packLanguage + ".round") }
    private var bestKey: String { Self.bestKey(packLanguage: pack?.language ?? language.rawValue) }

    // MARK: - Layout

    public override func layout() {
        let barHeight: Double = 64
        topBar.frame = Rect(0, 0, size.width, barHeight)
        homeButton.frame = Rect(10, 8, 56, 48)
        titleLabel.frame = Rect(size.width / 2 - 160, 6, 320, 52)
        scoreLabel.frame = Rect(size.width - 196, 4, 180, 34)
        progressLabel.frame = Rect(size.width - 196, 38, 180, 22)
        emptyLabel.frame = Rect(40, barHeight + 40, size.width - 80, size.height - barHeight - 80)

        let landscape = size.width >= size.height
        let margin: Double = 16
        let columns = 7, rows = 3
        let cell: Double
        let gridRect: Rect
        let slotRect: Rect
        if landscape {
            // Picture and its buttons on the left, answer and options on the right.
            let leftWidth = min(320, size.width * 0.38)
            let buttonHeight: Double = 52
            let pictureSide = min(leftWidth - 2 * margin, size.height - barHeight - buttonHeight * 3 - 5 * margin + 60)
            pictureCard.frame = Rect(margin + (leftWidth - 2 * margin - pictureSide) / 2, barHeight + margin,
                                     pictureSide, pictureSide)
            let buttonsTop = pictureCard.frame.maxY + margin
            let buttonWidth = (leftWidth - 2 * margin - 16) / 2
            hintButton.frame = Rect(margin, buttonsTop, leftWidth - 2 * margin, buttonHeight)
            bigButton.frame = Rect(margin, buttonsTop + buttonHeight + 12, buttonWidth, buttonHeight)
            nextButton.frame = Rect(margin + buttonWidth + 16, buttonsTop + buttonHeight + 12, buttonWidth, buttonHeight)
            let right = Rect(leftWidth + margin, barHeight + margin, size.width - leftWidth - 2 * margin,
                             size.height - barHeight - 2 * margin)
            cell = min(72, (right.width - 8 * Double(columns - 1)) / Double(columns),
                       (right.height - 100 - 8 * Double(rows - 1)) / Double(rows))
            let gridHeight = cell * Double(rows) + 8 * Double(rows - 1)
            gridRect = Rect(right.minX, right.maxY - gridHeight, right.width, gridHeight)
            slotRect = Rect(right.minX, right.minY, right.width, gridRect.minY - right.minY - margin)
        } else {
            // Portrait: picture on top, buttons, answer, options.
            let pictureSide = min(size.width * 0.62, size.height * 0.34)
            pictureCard.frame = Rect(size.width / 2 - pictureSide / 2, barHeight + margin, pictureSide, pictureSide)
            let buttonsTop = pictureCard.frame.maxY + margin
            let buttonWidth = (size.width - 2 * margin - 24) / 3
            hintButton.frame = Rect(margin, buttonsTop, buttonWidth, 52)
            bigButton.frame = Rect(margin + buttonWidth + 12, buttonsTop, buttonWidth, 52)
            nextButton.frame = Rect(margin + 2 * (buttonWidth + 12), buttonsTop, buttonWidth, 52)
            // Three across a narrow screen: a smaller face so "Need ★1000" fits beside its icon.
            for button in [hintButton, bigButton, nextButton] {
                button.textStyle = Theme.button.with(size: buttonWidth < 160 ? 15 : 18, color: Theme.text)
            }
            cell = min(72, (size.width - 2 * margin - 8 * Double(columns - 1)) / Double(columns))
            let gridHeight = cell * Double(rows) + 8 * Double(rows - 1)
            gridRect = Rect(margin, size.height - margin - gridHeight, size.width - 2 * margin, gridHeight)
            let slotTop = nextButton.frame.maxY + margin
            slotRect = Rect(margin, slotTop, size.width - 2 * margin, gridRect.minY - slotTop - margin)
        }
        let frames = GridLayout(columns: columns, rows: rows, spacing: 8).frames(in: gridRect, square: true)
        for (button, frame) in zip(optionButtons, frames) { button.frame = frame }
        slotRow.frame = slotRect
        layoutSlots()
        bigPicture?.layout(in: size, from: pictureCard.frame)
        endPanel?.layout(in: size)
    }

    private func layoutSlots() {
        let count = slotViews.count
        guard count > 0 else { return }
        let bounds = slotRow.bounds
        let spacing: Double = 8
        let side = min(68, bounds.height, (bounds.width - spacing * Double(count - 1)) / Double(count))
        let total = side * Double(count) + spacing * Double(count - 1)
        let x0 = (bounds.width - total) / 2
        for (index, slot) in slotViews.enumerated() {
            slot.frame = Rect(x0 + Double(index) * (side + spacing), (bounds.height - side) / 2, side, side)
        }
    }

    // MARK: - Showing the model

    /// Rebuilds what depends on the question: picture, title, slots, option labels.
    private func syncQuestion() {
        if let question = game.question, shownIndex != game.index || slotViews.count != question.answer.count {
            shownIndex = game.index
            pictureCard.emoji = question.picture
            titleLabel.text = question.title
            slotViews.forEach { $0.removeFromSuperview() }
            slotViews = question.answer.indices.map { index in
                let slot = SlotView()
                slot.onTap = { [weak self] in self?.tapSlot(index) }
                slotRow.addSubview(slot)
                return slot
            }
            layoutSlots()
            for (button, character) in zip(optionButtons, game.options) { button.title = String(character) }
        }
        syncState()
    }

    /// Updates what changes within a question: slots, hidden options, labels, buttons.
    private func syncState() {
        let characters = game.slotCharacters
        for (slot, character) in zip(slotViews, characters) {
            slot.character = character
            slot.judgement = game.judgement
        }
        for (index, button) in optionButtons.enumerated() {
            button.isHidden = pack == nil || index >= game.optionHidden.count || game.optionHidden[index]
        }
        scoreLabel.text = "★ \(game.score)"
        shownSeconds = game.secondsLeftText
        progressLabel.text = pack == nil ? "" : game.progressText + (shownSeconds.map { text(" · \($0) s", " · \($0) 秒") } ?? "")
        progressLabel.style = Theme.body.with(color: (shownSeconds ?? 99) <= 10 ? Theme.error : Theme.textDim, alignment: .right)
        nextButton.isEnabled = game.canGoNext
        hintButton.isEnabled = game.canHint
        // A hint is paid from the score, so it waits until the score covers it; the button
        // says so instead of going grey without a reason.
        let cost = game.rules.hintCost
        hintButton.title = game.canAffordHint
            ? text("Hint −\(cost)", "提示 −\(cost)") : text("Need ★\(cost)", "需要★\(cost)")
        bigButton.isEnabled = game.question != nil
        let hide = pack == nil
        [pictureCard, hintButton, bigButton, nextButton, slotRow].forEach { $0.isHidden = hide }
    }

    // MARK: - Actions

    func tapOption(_ index: Int) {
        guard !isAutoplaying || isDrivenByAutoplayer else { return }
        apply(game.tapOption(index))
    }

    func tapSlot(_ index: Int) {
        guard !isAutoplaying || isDrivenByAutoplayer else { return }
        apply(game.tapSlot(index))
    }

    func takeHint() {
        apply(game.hint())
    }

    func skip() {
        apply(game.next())
    }

    private var isDrivenByAutoplayer = false

    private func apply(_ events: [GuessPictureEvent]) {
        for event in events {
            switch event {
            case .placed(_, let slot):
                if slotViews.indices.contains(slot) { pop(slotViews[slot]) }
            case .returned:
                break
            case .right(let score):
                sound.play(.rightAnswer)
                if score > best && !isAutoplaying { best = score }
                pop(scoreLabel)
            case .wrong:
                sound.play(.wrongAnswer)
                shake(slotRow)
            case .timeUp:
                sound.play(.wrongAnswer)
                shake(pictureCard)
                hideBigPicture()
            case .hint:
                sound.play(.hint)
            case .newQuestion:
                break
            case .finished(let score):
                sound.play(.win)
                if score > best && !isAutoplaying { best = score }
                saveBest()
                showResults()
                reportResult(score, variantKey: bestKey)
            }
        }
        syncQuestion()
    }

    private func pop(_ view: View) {
        animator.tween(duration: Theme.normal, easing: .backOut) { [weak view] t in
            view?.scale = lerp(1.18, 1, t)
        }
    }

    private func shake(_ view: View) {
        let origin = view.frame
        animator.tween(duration: 0.3, easing: .linear) { [weak view] t in
            let offset = sin(t * Double.pi * 6) * 10 * (1 - t)
            view?.frame = origin.offsetBy(offset, 0)
        }
    }

    func showBigPicture() {
        guard bigPicture == nil, let question = game.question else { return }
        let overlay = BigPictureOverlay(emoji: question.picture)
        overlay.onTap = { [weak self] in self?.hideBigPicture() }
        overlay.layout(in: size, from: pictureCard.frame)
        addSubview(overlay)
        bigPicture = overlay
        overlay.grow(animator: animator)
    }

    func hideBigPicture() {
        guard let overlay = bigPicture else { return }
        bigPicture = nil
        overlay.shrink(animator: animator)
    }

    private func showResults() {
        present(EndOfGamePanel(
            emoji: "🏆", title: text("Round over!", "本轮结束！"),
            headline: text("Score \(game.score)", "得分 \(game.score)"),
            lines: [
                text("Right answers \(game.answeredRight)/\(game.roundCount)   Hints \(game.hintsUsed)",
                     "答对 \(game.answeredRight)/\(game.roundCount)   提示 \(game.hintsUsed)"),
                text("Best \(best)", "最高 \(best)"),
            ],
            choices: [.init(text("Play again", "再玩一次"), icon: "🔄") { [weak self] in self?.restart() }]))
    }

    public func restart() {
        dismissEndPanel()
        bigPicture?.removeFromSuperview()
        bigPicture = nil
        game.restart()
        shownIndex = -1
        syncQuestion()
    }

    /// The highest score the round reached is the best (a hint spends score the player had).
    private func saveBest() {
        guard pack != nil else { return }
        recordBest(best, variantKey: bestKey)
    }

    // MARK: - Frames and the kiosk

    public override var isLive: Bool {
        guard !isPaused else { return false }
        if case .advancing = game.phase { return true }
        // The question's clock: frames while it runs (the label changes once a second).
        if game.phase == .playing && game.timeLeft.isFinite && pack != nil { return true }
        return isAutoplaying && !game.isFinished
    }

    /// The clock's whole seconds on screen, to redraw the label only when they change.
    private var shownSeconds: Int?

    public override func update(dt: Double) {
        guard !isPaused, dt > 0 else { return }
        defer { if game.secondsLeftText != shownSeconds { syncState() } }
        if isAutoplaying, bigPicture == nil, let action = autoplayer.action(after: dt, in: game) {
            isDrivenByAutoplayer = true
            switch action {
            case .tapOption(let index): tapOption(index)
            case .tapSlot(let index): tapSlot(index)
            case .hint: takeHint()
            case .next: skip()
            }
            isDrivenByAutoplayer = false
        }
        let events = game.advance(by: dt)
        if !events.isEmpty { apply(events) }
        if isAutoplaying && game.isFinished && endPanel != nil {
            // The attract mode starts the pack over after a moment on the end screen.
            autoplayRestartDelay -= dt
            if autoplayRestartDelay <= 0 {
                autoplayRestartDelay = 3
                restart()
            }
        }
    }

    private var autoplayRestartDelay = 3.0

    /// With the big picture showing, any key puts it back (as a tap anywhere does).
    public override func handleKey(_ key: Key) -> Bool {
        guard bigPicture != nil else { return false }
        hideBigPicture()
        return true
    }

    public override func saveProgress() { saveBest() }
}
