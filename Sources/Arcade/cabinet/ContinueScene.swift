import Graphics
import Input
import UI

/// "Continue?" after a lost game in credits mode: a countdown from 9, the credits there
/// are, and a button that spends a play's credits to go on where the game ended. A coin
/// dropped during the countdown counts (the kiosk updates `credits`).
final class ContinueScene: Scene {
    /// Seconds from 9 down to 0, then the game is over.
    static let duration = 10.0
    let deadline: Double
    var onContinue: (() -> Void)?
    private let language: Language
    private let creditsPerPlay: Int
    private let clock: () -> Double
    private let titleLabel = Label("", style: Theme.title.with(color: Theme.accent))
    private let countLabel = Label("9", style: TextStyle(size: 120, weight: .bold, color: Theme.text))
    private let creditLabel = Label("", style: Theme.body)
    let continueButton: Button
    private var shown = -1

    init(language: Language, creditsPerPlay: Int, credits: Int, now: Double, clock: @escaping () -> Double) {
        self.language = language
        self.creditsPerPlay = creditsPerPlay
        self.clock = clock
        deadline = now + Self.duration
        continueButton = Button(language == .chinese ? "继续" : "Continue", kind: .primary)
        super.init()
        backgroundColor = Theme.background
        titleLabel.text = language == .chinese ? "继续游戏？" : "Continue?"
        [titleLabel, countLabel, creditLabel, continueButton].forEach(addSubview)
        continueButton.action = { [weak self] in self?.onContinue?() }
        self.credits = credits
        showCredits()
        focus(continueButton)
        tickCount()
    }

    var credits = 0 { didSet { showCredits() } }

    private func showCredits() {
        let enough = credits >= creditsPerPlay
        continueButton.isEnabled = enough
        let cost = language == .chinese ? "\(creditsPerPlay) 个币" : (creditsPerPlay == 1 ? "1 credit" : "\(creditsPerPlay) credits")
        creditLabel.text = enough
            ? (language == .chinese ? "币数 \(credits) · 继续要 \(cost)" : "Credits \(credits) · continue for \(cost)")
            : (language == .chinese ? "请投币" : "Insert coin")
        creditLabel.style = Theme.body.with(color: enough ? Theme.text : Theme.accent)
    }

    /// 9 ... 0.
    var count: Int { max(0, Int((deadline - clock()).rounded(.up)) - 1) }

    func isExpired(now: Double) -> Bool { now >= deadline }

    private func tickCount() {
        let n = count
        guard n != shown else { return }
        shown = n
        countLabel.text = String(n)
    }

    override var isLive: Bool { true }
    override func update(dt: Double) { tickCount() }

    override func handleKey(_ key: Key) -> Bool {
        guard key == .confirm || key == .start else { return false }
        if continueButton.isEnabled { onContinue?() }
        return true
    }

    override func handleBack() {}

    override func layout() {
        let portrait = size.height > size.width
        titleLabel.frame = Rect(0, portrait ? 120 : 24, size.width, 56)
        countLabel.frame = Rect(0, titleLabel.frame.maxY + 8, size.width, 150)
        creditLabel.frame = Rect(0, countLabel.frame.maxY + 8, size.width, 30)
        continueButton.frame = Rect(center: Point(size.width / 2, creditLabel.frame.maxY + 50), size: Size(260, 64))
    }
}
