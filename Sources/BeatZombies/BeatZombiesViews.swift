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
    /// Where the zombies were painted after the last change (`BeatZombiesScene.paintedAreas`).
    private var zombieAreas: [Rect] = []

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

    /// The zombies moved, were beaten or picked: their old and new places are drawn again,
    /// over the still grass (at 1920x1080 the whole lawn was most of a frame's cost).
    func zombiesChanged() {
        let areas = owner?.paintedAreas() ?? []
        for area in zombieAreas + areas { setNeedsDisplay(area) }
        zombieAreas = areas
    }

    /// A new game or a new lawn size: all of it.
    func redrawAll() {
        setNeedsDisplay()
        zombieAreas = owner?.paintedAreas() ?? []
    }

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
