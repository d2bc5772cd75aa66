import GameCore
import Audio
import Graphics
import Input
import Platform
import UI
#if canImport(Glibc)
import Glibc
#endif

/// The lawn: striped grass, a few graves where the zombies come from, the zombies sorted so
/// the nearer ones are drawn on top, and touch-down hits.
final class LawnView: View {
    weak var owner: BeatZombiesScene?
    private let decorations: [(emoji: String, x: Double, y: Double, size: Double)]

    init(seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x5EED)
        var items: [(String, Double, Double, Double)] = []
        for _ in 0..<7 {
            items.append(([ "🌼", "🌿", "🍄" ][random.below(3)], random.unit(), random.unit(), 18 + 8 * random.unit()))
        }
        for i in 0..<3 {
            items.append(("🪦", 0.93 + 0.04 * random.unit(), 0.15 + 0.3 * Double(i) + 0.1 * random.unit(), 34))
        }
        decorations = items
        super.init(frame: .zero)
    }

    override var acceptsTouches: Bool { true }

    override func touchBegan(_ touch: Touch) {
        owner?.lawnTouched(at: touch.location)
    }

    override func draw(_ canvas: Canvas) {
        let stripes = 6
        let stripeHeight = bounds.height / Double(stripes)
        for i in 0..<stripes {
            let color = i % 2 == 0 ? Color(hex: 0x5DAE45) : Color(hex: 0x529E3D)
            canvas.fill(Rect(0, Double(i) * stripeHeight, bounds.width, stripeHeight + 1), color)
        }
        // A soft darker band along the top edge, under the bar's shadow.
        canvas.fillVerticalGradient(Rect(0, 0, bounds.width, 18), top: Color(r: 0, g: 0, b: 0, a: 60),
                                    bottom: Color(r: 0, g: 0, b: 0, a: 0))
        let fonts = UIEnvironment.fonts
        for item in decorations {
            let center = Point(item.x * bounds.width, 20 + item.y * (bounds.height - 40))
            canvas.drawEmoji(item.emoji, in: Rect(center: center, size: Size(item.size, item.size)), fonts: fonts,
                             alpha: item.emoji == "🪦" ? 0.9 : 0.75)
        }
        guard let scene = owner else { return }
        let game = scene.game
        let order = game.zombies.sorted { game.drawFrame(of: $0).maxY < game.drawFrame(of: $1).maxY }
        for zombie in order where !zombie.isBeaten { scene.drawZombie(zombie, canvas) }
        // Beaten zombies on top: they grow over their neighbours.
        for zombie in order where zombie.isBeaten { scene.drawZombie(zombie, canvas) }
        if let selected = scene.selectedZombie {
            // The stick's pick: a ring at its feet and a marker above its head.
            let rect = game.drawFrame(of: selected)
            canvas.strokeEllipse(Rect(rect.midX - rect.width * 0.45, rect.maxY - 14, rect.width * 0.9, 20), width: 3,
                                 Theme.accent)
            canvas.fillPolygon([Point(rect.midX - 10, rect.minY - 18), Point(rect.midX + 10, rect.minY - 18),
                                Point(rect.midX, rect.minY - 4)], Theme.accent)
        }
    }
}

/// "The zombies won": a dimmed cover and a panel that grows from the centre to twice its
/// size over a second, then the restart button appears.
final class LostOverlay: GameOverlay {
    let panel = Panel(fill: Theme.surface)
    let titleLabel: Label
    let messageLabel: Label
    /// The house taken (the art set's "lost" picture), else the zombie emoji.
    let icon: ImageView
    let restartButton: Button

    init(title: String, message: String, buttonTitle: String, picture: Surface? = nil) {
        icon = picture.map { ImageView(image: $0) } ?? ImageView(emoji: "🧟")
        titleLabel = Label(title, style: Theme.title.with(color: Theme.error))
        messageLabel = Label(message, style: Theme.body.with(color: Theme.textDim))
        restartButton = Button(buttonTitle, icon: "🔄")
        super.init(primaryButton: restartButton)
        addSubview(panel)
        [icon, titleLabel, messageLabel].forEach(panel.addSubview)
        addSubview(restartButton)
        titleLabel.shrinksToFit = true
    }

    override func layoutPanel(in size: Size) {
        let width = min(480, size.width - 40)
        let height: Double = 240
        panel.frame = Rect(center: Point(size.width / 2, size.height / 2 - 30), size: Size(width, height))
        if let picture = icon.image {
            // As wide as its proportions allow in the 80-point band above the title.
            let iconWidth = min(width - 40, 80 * Double(picture.width) / Double(picture.height))
            icon.frame = Rect(width / 2 - iconWidth / 2, 16, iconWidth, 80)
        } else {
            icon.frame = Rect(width / 2 - 40, 16, 80, 80)
        }
        titleLabel.frame = Rect(20, 100, width - 40, 56)
        messageLabel.frame = Rect(20, 160, width - 40, 40)
        restartButton.frame = Rect(center: Point(size.width / 2, panel.frame.maxY + 50), size: Size(240, 64))
    }

    override func present(animator: Animator) {
        alpha = 0
        panel.scale = 0.5
        restartButton.isHidden = true
        restartButton.alpha = 0
        animator.tween(duration: 1.0, easing: .easeOut) { [weak self] t in
            self?.alpha = min(1, t * 3)
            self?.panel.scale = lerp(0.5, 1, t)
        }.onComplete { [weak self] in
            guard let self else { return }
            self.restartButton.isHidden = false
            animator.tween(duration: Theme.normal) { [weak self] t in self?.restartButton.alpha = t }
        }
    }
}
