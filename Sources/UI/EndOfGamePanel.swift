import Graphics

/// The panel over a finished game, the same for every game: a dimmed cover that takes every
/// touch, and on it the game's picture, a title, its headline figure (the score), a few
/// lines of figures, and one or two buttons (the first is the next game's). A game gives
/// the words and pictures; the panel places them and brings them in. While it shows it is
/// modal: touches and focus stay inside it, and the back key runs `onBack` (home when
/// nil). `GameScene.present(_:)` shows it.
public final class EndOfGamePanel: View {
    /// A button's words, its icon and what it does.
    public struct Choice {
        public var title: String
        public var icon: String?
        public var action: () -> Void

        public init(_ title: String, icon: String? = nil, action: @escaping () -> Void) {
            self.title = title
            self.icon = icon
            self.action = action
        }
    }

    /// The panel grows in over this long; the buttons come this much later still, so the
    /// tap that ended a game cannot start the next one.
    public static let growDuration = 0.5
    public static let buttonDelay = 0.8

    public let panel = Panel(fill: Theme.surface)
    /// The game's picture: its art when it has some (the house the zombies took), else an emoji.
    public let picture: ImageView
    public let titleLabel: Label
    public let headlineLabel: Label
    public let lineLabels: [Label]
    /// The first one is primary and focused; a press takes the panel away, then acts.
    public private(set) var buttons: [Button] = []
    /// The back key's action; nil goes home, as in the game.
    public var onBack: (() -> Void)?
    /// Set by the scene showing the panel: runs before a button's action (takes it away).
    var onChoice: (() -> Void)?

    /// `emoji` is the picture where `image` is nil; `titleColor` says how it went (the
    /// accent for a result, the error red for a loss); `headline` is the big figure.
    public init(emoji: String, image: Surface? = nil, title: String, titleColor: Color = Theme.accent,
                headline: String = "", lines: [String] = [], choices: [Choice]) {
        picture = ImageView(emoji: emoji, image: image)
        titleLabel = Label(title, style: Theme.title.with(color: titleColor))
        headlineLabel = Label(headline, style: Theme.heading)
        lineLabels = lines.map { Label($0, style: Theme.body.with(color: Theme.textDim)) }
        super.init(frame: .zero)
        backgroundColor = Theme.dimCover
        titleLabel.shrinksToFit = true
        headlineLabel.shrinksToFit = true
        addSubview(panel)
        ([picture, titleLabel, headlineLabel] + lineLabels).forEach(panel.addSubview)
        for (index, choice) in choices.enumerated() {
            let button = Button(choice.title, icon: choice.icon, kind: index == 0 ? .primary : .secondary)
            button.action = { [weak self] in
                self?.onChoice?()
                choice.action()
            }
            buttons.append(button)
            panel.addSubview(button)
        }
    }

    public override var acceptsTouches: Bool { true }

    static let padding: Double = 20
    static let titleHeight: Double = 52
    static let headlineHeight: Double = 40
    static let buttonHeight: Double = 64
    /// An emoji is a badge; a game's art takes the height the words leave, up to this.
    static let emojiHeight: Double = 72
    static let imageHeight: Double = 220

    /// Covers a scene of `size` and centres the panel, as tall as what it holds.
    public func layout(in size: Size) {
        frame = Rect(0, 0, size.width, size.height)
        let width = min(520, size.width - 40)
        let inner = width - 2 * Self.padding
        let lineHeights = lineLabels.map { $0.text.isEmpty ? 0 : Dialog.wrappedHeight($0, width: inner) + 8 }
        let headlineHeight = headlineLabel.text.isEmpty ? 0 : Self.headlineHeight
        let words = Self.titleHeight + headlineHeight + lineHeights.reduce(0, +)
        let fixed = 16 + 8 + words + 16 + Self.buttonHeight + 18
        let room = max(0, size.height - 40 - fixed)
        let pictureHeight = picture.image == nil ? min(Self.emojiHeight, room) : min(Self.imageHeight, room)
        let height = fixed + pictureHeight
        panel.frame = Rect(center: Point(size.width / 2, size.height / 2), size: Size(width, height))

        var pictureWidth = pictureHeight
        if let image = picture.image, image.height > 0 {
            pictureWidth = min(inner, pictureHeight * Double(image.width) / Double(image.height))
        }
        picture.frame = Rect(width / 2 - pictureWidth / 2, 16, pictureWidth, pictureHeight)
        var y = picture.frame.maxY + 8
        titleLabel.frame = Rect(Self.padding, y, inner, Self.titleHeight)
        y += Self.titleHeight
        headlineLabel.frame = Rect(Self.padding, y, inner, headlineHeight)
        y += headlineHeight
        for (label, lineHeight) in zip(lineLabels, lineHeights) {
            label.frame = Rect(Self.padding, y, inner, lineHeight)
            y += lineHeight
        }
        let count = Double(max(1, buttons.count))
        let buttonWidth = min(240, (inner - 16 * (count - 1)) / count)
        let rowWidth = buttonWidth * count + 16 * (count - 1)
        for (i, button) in buttons.enumerated() {
            button.frame = Rect(width / 2 - rowWidth / 2 + Double(i) * (buttonWidth + 16),
                                height - 18 - Self.buttonHeight, buttonWidth, Self.buttonHeight)
        }
    }

    /// The cover fades in as the panel grows from the centre; the buttons follow.
    func present(animator: Animator) {
        alpha = 0
        panel.scale = 0.6
        for button in buttons {
            button.isHidden = true
            button.alpha = 0
        }
        animator.tween(duration: Self.growDuration, easing: .easeOut) { [weak self] t in
            self?.alpha = min(1, t * 3)
            self?.panel.scale = lerp(0.6, 1, t)
        }
        animator.tween(duration: Theme.normal, delay: Self.buttonDelay) { [weak self] t in
            for button in self?.buttons ?? [] {
                button.isHidden = false
                button.alpha = t
            }
        }
    }

    /// The back key: `onBack`, or home.
    func back() {
        if let onBack { onBack() } else { scene?.handleBack() }
    }
}
