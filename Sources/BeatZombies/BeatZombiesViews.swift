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
    /// The art set's plants and gravestones, where on the lawn (fractions of its size) and
    /// how big in points; a set without them leaves the grass bare.
    private let decorations: [(picture: Surface, x: Double, y: Double, height: Double, alpha: Double)]

    init(seed: UInt64, art: ZombieSprites) {
        var random = SeededRandom(seed: seed ^ 0x5EED)
        var items: [(Surface, Double, Double, Double, Double)] = []
        if !art.plants.isEmpty {
            for _ in 0..<7 {
                let plant = art.plants[random.below(art.plants.count)]
                items.append((plant, random.unit(), random.unit(), 18 + 8 * random.unit(), 0.85))
            }
        }
        if !art.graves.isEmpty {
            // The graves the zombies come from, along the far edge.
            for i in 0..<3 {
                items.append((art.graves[i % art.graves.count], 0.93 + 0.04 * random.unit(),
                              0.15 + 0.3 * Double(i) + 0.1 * random.unit(), 44, 1))
            }
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
        for item in decorations {
            let width = item.height * Double(item.picture.width) / Double(item.picture.height)
            let center = Point(item.x * bounds.width, 20 + item.y * (bounds.height - 40))
            canvas.drawImage(item.picture, in: Rect(center: center, size: Size(width, item.height)), alpha: item.alpha)
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

/// "The zombies won": a dimmed cover and a panel that grows from the centre to full size
/// over a second, then the restart button appears at its foot.
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
        // The screen's panel: the picture takes what the words and the button leave.
        let width = min(560, size.width - 40)
        let height = min(440, size.height - 40)
        panel.frame = Rect(center: Point(size.width / 2, size.height / 2), size: Size(width, height))
        let buttonHeight: Double = 64
        let pictureHeight = max(40, height - 16 - 56 - 40 - buttonHeight - 4 * 12)
        if let picture = icon.image {
            let iconWidth = min(width - 40, pictureHeight * Double(picture.width) / Double(picture.height))
            icon.frame = Rect(width / 2 - iconWidth / 2, 16, iconWidth, pictureHeight)
        } else {
            icon.frame = Rect(width / 2 - pictureHeight / 2, 16, pictureHeight, pictureHeight)
        }
        titleLabel.frame = Rect(20, icon.frame.maxY + 12, width - 40, 56)
        messageLabel.frame = Rect(20, titleLabel.frame.maxY + 4, width - 40, 40)
        restartButton.frame = Rect(center: Point(size.width / 2, panel.frame.maxY - 16 - buttonHeight / 2),
                                   size: Size(min(260, width - 40), buttonHeight))
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
