import GameCore
import Audio
import Graphics
import UI

/// Find the Ball on screen: three cups in a row and the score; a tap lifts a cup. The
/// fifth round ends the game with the shared end-of-game panel.
public final class FindTheBallScene: GameScene {
    static let keys = StorageKeys(namespace: "ball")
    static let bestKey = keys.best()

    public override var isAutoplaying: Bool {
        didSet { if isAutoplaying != oldValue { autoplayPace.reset() } }
    }

    private var seeds: SeededRandom
    public private(set) var model: FindTheBallModel
    public let cups: [Button]
    private let scoreLabel = Label("", style: Theme.heading)
    /// Attract mode: a cup every 0.7 s, a pause on a finished game.
    private var autoplayPace = AutoplayPace(interval: 0.7)

    public init(_ context: GameContext) {
        seeds = SeededRandom(seed: context.seed)
        model = FindTheBallModel(seed: seeds.next())
        cups = (0..<FindTheBallModel.cupCount).map { _ in Button(icon: "🥤", kind: .secondary) }
        super.init(context, game: .findTheBall)
        backgroundColor = Theme.background
        for (index, cup) in cups.enumerated() {
            cup.action = { [weak self] in self?.lift(index) }
        }
        ([homeButton, scoreLabel] + cups).forEach(addSubview)
        refresh()
    }

    public override func layout() {
        homeButton.frame = Rect(16, 16, 56, 56)
        scoreLabel.frame = Rect(88, 16, size.width - 176, 56)
        let side = min(160, (size.width - 80) / 3)
        for (index, cup) in cups.enumerated() {
            cup.frame = Rect(size.width / 2 + (Double(index) - 1.5) * (side + 20) + 10, size.height / 2 - side / 2, side, side)
        }
        endPanel?.layout(in: size)
    }

    func lift(_ cup: Int) {
        guard model.phase == .playing, endPanel == nil else { return }
        sound.play(model.lift(cup) ? .match : .mismatch)
        refresh()
        guard model.phase == .over else { return }
        sound.play(.win)
        if !isAutoplaying {
            present(EndOfGamePanel(
                emoji: "⚽", title: text("All rounds played", "五轮结束"),
                headline: text("Found \(model.score) of \(FindTheBallModel.roundCount)", "找到 \(model.score)/\(FindTheBallModel.roundCount)"),
                choices: [.init(text("Play again", "再来一局"), icon: "🔄") { [weak self] in self?.newGame() }]))
        }
        reportResult(model.score, variantKey: Self.bestKey)
    }

    func newGame() {
        dismissEndPanel()
        model = FindTheBallModel(seed: seeds.next())
        refresh()
    }

    private func refresh() {
        scoreLabel.text = text("Round \(min(model.round + 1, FindTheBallModel.roundCount)) · found \(model.score)",
                               "第 \(min(model.round + 1, FindTheBallModel.roundCount)) 轮 · 找到 \(model.score)")
    }

    public override var isLive: Bool { isAutoplaying }

    public override func update(dt: Double) {
        guard isAutoplaying else { return }
        if model.phase == .over {
            if autoplayPace.restartDue(after: dt) { newGame() }
        } else if autoplayPace.moveDue(after: dt) {
            lift(seeds.below(FindTheBallModel.cupCount))
        }
    }
}
