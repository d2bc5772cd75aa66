import CPixman
import Display
import Graphics
import UI

/// A 1280x800 scene of 20 alpha sprites and text, drawn by our stack and by plain pixman
/// calls, so the toolkit's overhead shows as a ratio.
final class SpriteScene: Scene {
    var sprites: [ImageView] = []
    var labels: [Label] = []

    init(sprite: Surface) {
        super.init()
        backgroundColor = Theme.background
        for i in 0..<20 {
            let v = ImageView(image: sprite)
            v.frame = SpriteScene.spriteFrame(i, frame: 0)
            sprites.append(v)
            addSubview(v)
        }
        for i in 0..<4 {
            let l = Label("Score \(i * 1234)  Zombies 12/60", style: Theme.heading)
            l.frame = Rect(20, 20 + Double(i) * 40, 460, 36)
            labels.append(l)
            addSubview(l)
        }
    }

    static func spriteFrame(_ i: Int, frame: Int) -> Rect {
        let col = i % 5, row = i / 5
        return Rect(Double(col) * 150 + 40 + Double(frame % 7), Double(row) * 110 + 200, 104, 90)
    }

    func step(_ frame: Int) {
        for (i, v) in sprites.enumerated() { v.frame = SpriteScene.spriteFrame(i, frame: frame) }
    }
}

func makeSprite() -> Surface {
    let s = Surface(width: 83, height: 72, format: .argb8888)
    let c = Canvas(surface: s)
    c.fillEllipse(Rect(4, 4, 75, 64), Color(hex: 0x4ADE80, alpha: 220))
    c.fillCircle(center: Point(30, 28), radius: 8, .white)
    c.fillCircle(center: Point(54, 28), radius: 8, .white)
    c.fillRoundedRect(Rect(24, 48, 36, 8), radius: 4, Color(hex: 0x14532D))
    return s
}

func graphicsBench(frames: Int) -> [ReportRow] {
    let sprite = makeSprite()
    let screen = Screen(width: 1280, height: 800)
    let scene = SpriteScene(sprite: sprite)
    screen.show(scene, now: 1)
    screen.renderFrame(now: 1)

    var damagedFraction = 0.0
    let damaged = Timing.measure(count: frames) { i in
        scene.step(i)
        let d = screen.renderFrame(now: 100 + Double(i) / 60)
        damagedFraction = Double(d.area) / Double(1280 * 800)
    }

    // The same picture with plain pixman calls: fill, 20 scaled sprite composites, and
    // the four text lines as pre-rendered images (argb8888, drawn once).
    let target = Surface(width: 1280, height: 800, format: .xrgb8888)
    let fonts = UIEnvironment.fonts
    let masks: [Surface] = scene.labels.map { label in
        let m = Surface(width: Int(460 * screen.scale), height: Int(36 * screen.scale), format: .argb8888)
        Canvas(surface: m, scale: screen.scale).drawText(label.text, in: Rect(0, 0, 460, 36), style: label.style, fonts: fonts)
        return m
    }
    var bg = Theme.background.pixmanColor
    func drawRaw(_ target: Surface, _ i: Int) {
        var box = pixman_box32_t(x1: 0, y1: 0, x2: 1280, y2: 800)
        pixman_image_fill_boxes(PIXMAN_OP_SRC, target.pixmanImage, &bg, 1, &box)
        for s in 0..<20 {
            let r = SpriteScene.spriteFrame(s, frame: i)
            let px = Rect(r.x * screen.scale, r.y * screen.scale, r.width * screen.scale, r.height * screen.scale)
            var t = pixman_transform_t()
            let sx = Double(sprite.width) / px.width, sy = Double(sprite.height) / px.height
            pixman_transform_init_scale(&t, fixed(sx), fixed(sy))
            pixman_transform_translate(&t, nil, fixed(-px.x * sx), fixed(-px.y * sy))
            pixman_image_set_transform(sprite.pixmanImage, &t)
            pixman_image_set_filter(sprite.pixmanImage, PIXMAN_FILTER_BILINEAR, nil, 0)
            let area = px.enclosingPixels
            pixman_image_composite32(PIXMAN_OP_OVER, sprite.pixmanImage, nil, target.pixmanImage,
                                     Int32(area.x), Int32(area.y), 0, 0, Int32(area.x), Int32(area.y),
                                     Int32(area.width), Int32(area.height))
            pixman_image_set_transform(sprite.pixmanImage, nil)
        }
        for (n, m) in masks.enumerated() {
            pixman_image_composite32(PIXMAN_OP_OVER, m.pixmanImage, nil, target.pixmanImage, 0, 0, 0, 0,
                                     Int32(20 * screen.scale), Int32((20 + Double(n) * 40) * screen.scale),
                                     Int32(m.width), Int32(m.height))
        }
    }
    // A full redraw and the raw calls take turns: the ratio's two sides see the same load.
    let fullAndRaw = Timing.interleaved(count: frames, [
        { i in
            scene.step(i)
            screen.invalidateAll()
            screen.renderFrame(now: 1 + Double(i) / 60)
        },
        { i in drawRaw(target, i) },
    ])
    let full = fullAndRaw[0], raw = fullAndRaw[1]

    // An rgb565 panel: draw into an rgb565 shadow (pixman blends in 565), or draw into
    // xrgb8888 and convert at copy-out (CopyOut's kernel). The cheaper of the two wins.
    let shadow565 = Surface(width: 1280, height: 800, format: .rgb565)
    let panel565 = Surface(width: 1280, height: 800, format: .rgb565)
    let convert = CopyOut(destination: panel565, rotation: .deg0)
    let rgb565Ways = Timing.interleaved(count: frames, [
        { i in drawRaw(shadow565, i) },
        { i in
            drawRaw(target, i)
            try? convert.copy(from: target, region: DamageRegion(target.bounds))
        },
    ])
    let into565 = rgb565Ways[0], convertAfter = rgb565Ways[1]
    var figures: [(String, Double)] = []
    figures.append(("full_median_ms", full.median * 1000))
    figures.append(("full_p99_ms", full.p99 * 1000))
    figures.append(("damaged_median_ms", damaged.median * 1000))
    figures.append(("damaged_p99_ms", damaged.p99 * 1000))
    figures.append(("damaged_fraction", damagedFraction))
    figures.append(("raw_pixman_median_ms", raw.median * 1000))
    figures.append(("full_over_raw_pixman", full.median / raw.median))
    figures.append(("damaged_over_raw_pixman", damaged.median / raw.median))
    let rgb565 = ReportRow(section: "graphics", name: "sprites20-1280x800-rgb565-panel", figures: [
        ("draw_xrgb8888_then_convert_ms", convertAfter.median * 1000), ("draw_into_rgb565_ms", into565.median * 1000),
        ("rgb565_shadow_over_convert", into565.median / convertAfter.median)])
    return [ReportRow(section: "graphics", name: "sprites20-1280x800", figures: figures), rgb565]
}

private func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t(v * 65536) }
