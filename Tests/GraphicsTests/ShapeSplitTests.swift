import TestSupport
import CPixman
import XCTest
@testable import Graphics

/// Big convex shapes are drawn in pieces (a solid core without a mask, the rest
/// rasterized); the pixels must be exactly those of one pixman call over the whole
/// outline, as Canvas drew them before.
final class ShapeSplitTests: XCTestCase {
    /// The reference: every trapezoid in one mask, composited once, rows cut to the clip.
    func drawWhole(_ pts: [Point], _ color: Color, on s: Surface, clip: PixelRect) {
        let top = fixed(Double(clip.y)), bottom = fixed(Double(clip.maxY))
        let traps = Canvas.trapezoids(convex: pts).compactMap { t -> pixman_trapezoid_t? in
            var t = t
            t.top = max(t.top, top)
            t.bottom = min(t.bottom, bottom)
            return t.bottom > t.top ? t : nil
        }
        var pc = color.pixmanColor
        let src = pixman_image_create_solid_fill(&pc)!
        var region = pixman_region32_t()
        pixman_region32_init_rect(&region, Int32(clip.x), Int32(clip.y), UInt32(clip.width), UInt32(clip.height))
        pixman_image_set_clip_region32(s.pixmanImage, &region)
        traps.withUnsafeBufferPointer { buf in
            pixman_composite_trapezoids(PIXMAN_OP_OVER, src, s.pixmanImage, PIXMAN_a8, 0, 0, 0, 0,
                                        Int32(buf.count), buf.baseAddress)
        }
        pixman_image_set_clip_region32(s.pixmanImage, nil)
        pixman_region32_fini(&region)
        pixman_image_unref(src)
    }

    func polygon(center: Point, radii: (Double, Double), sides: Int, turn: Double = 0.1) -> [Point] {
        (0..<sides).map { i in
            let a = Double(i) / Double(sides) * 2 * Double.pi + turn
            return Point(center.x + radii.0 * cos(a), center.y + radii.1 * sin(a))
        }
    }

    /// A rounded rectangle's outline as Canvas makes one: arcs of `segments` steps.
    func roundedRect(_ r: Rect, radius: Double, segments: Int = 12) -> [Point] {
        var pts: [Point] = []
        let corners = [(Point(r.maxX - radius, r.minY + radius), -Double.pi / 2), (Point(r.maxX - radius, r.maxY - radius), 0),
                       (Point(r.minX + radius, r.maxY - radius), Double.pi / 2), (Point(r.minX + radius, r.minY + radius), Double.pi)]
        for (c, start) in corners {
            for i in 0...segments {
                let a = start + Double(i) / Double(segments) * Double.pi / 2
                pts.append(Point(c.x + radius * cos(a), c.y + radius * sin(a)))
            }
        }
        return pts
    }

    func testPiecesMatchOneCallByteForByte() {
        let shapes: [[Point]] = [
            roundedRect(Rect(50.3, 40.6, 620.2, 500.9), radius: 61.4),                       // a panel's shadow layer
            roundedRect(Rect(-30.5, 300.25, 900, 400), radius: 33),                          // past the edges
            roundedRect(Rect(100, 100, 40, 300), radius: 19.5),                              // narrow
            polygon(center: Point(401.3, 377.7), radii: (300.2, 250.9), sides: 64),          // a big ellipse
            polygon(center: Point(200.5, 150.25), radii: (180, 120), sides: 4, turn: Double.pi / 4),  // a turned square
            [Point(30.4, 20.6), Point(700.7, 20.6), Point(700.7, 610.3), Point(30.4, 610.3)],   // a fractional rect
            [Point(10, 10), Point(790, 12.5), Point(760, 630.2), Point(40.75, 600)],          // a quadrilateral
            polygon(center: Point(600, 300), radii: (6, 200), sides: 24),                    // too thin for a core
            polygon(center: Point(333.6, 290.4), radii: (150.3, 150.3), sides: 120, turn: 0),  // a menu tile's light spot
        ]
        let clips = [PixelRect(0, 0, 800, 640), PixelRect(37, 41, 513, 300), PixelRect(0, 400, 800, 7)]
        for (n, pts) in shapes.enumerated() {
            for color in [Color(hex: 0x3366CC), Color(r: 250, g: 120, b: 30, a: 140)] {
                for clip in clips {
                    let split = Surface(width: 800, height: 640, format: .xrgb8888)
                    let whole = Surface(width: 800, height: 640, format: .xrgb8888)
                    for s in [split, whole] { s.clear(s.bounds, to: Color(hex: 0x202830)) }
                    Canvas(surface: split).clipped(to: Rect(Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height)))
                        .fillPolygon(pts, color)
                    drawWhole(pts, color, on: whole, clip: clip)
                    XCTAssertEqual(memcmp(split.pixels, whole.pixels, split.byteCount), 0, "shape \(n) colour \(color) clip \(clip)")
                }
            }
        }
        XCTAssertNotNil(Canvas.solidCore(Canvas.trapezoids(convex: shapes[0])), "the ellipse is drawn in pieces")
        XCTAssertNil(Canvas.solidCore(Canvas.trapezoids(convex: shapes[7])), "the thin shape in one call")
        let top = Canvas.trapezoids(convex: shapes[0]).compactMap { Canvas.cut($0, to: 0..<100) }
        XCTAssertNotNil(Canvas.innerColumns(top), "a panel's rounded top is split by columns")
    }
}

/// Shadows come from a cached mask of their stacked layers: the same picture as drawing
/// the layers one by one (up to rounding), and one mask per size.
final class ShadowMaskTests: XCTestCase {
    func testMaskedShadowLooksLikeTheStackedLayers() {
        let color = Color(r: 20, g: 10, b: 60, a: 90)
        // On the quarter-pixel grid masks are kept on, and off it (moved up to 1/8 px).
        for (rect, scale, tolerance) in [(Rect(40.25, 30.75, 200.5, 120.25), 1.0, 3), (Rect(20, 25, 90, 60), 2.25, 3),
                                         (Rect(40.3, 30.7, 200.4, 120.2), 1.0, 6)] {
            let masked = Surface(width: 640, height: 400, format: .xrgb8888)
            let stacked = Surface(width: 640, height: 400, format: .xrgb8888)
            for s in [masked, stacked] { s.clear(s.bounds, to: Color(hex: 0xC8D0E0)) }
            Canvas(surface: masked, scale: scale).shadow(rect, radius: 14, blur: 8, offsetY: 4, color: color)
            let canvas = Canvas(surface: stacked, scale: scale)
            for i in 0..<5 {  // the layers as Canvas drew them before the mask
                let grow = 8 * Double(5 - i) / 5
                canvas.fillRoundedRect(rect.offsetBy(0, 4).insetBy(-grow, -grow), radius: 14 + grow,
                                       color.withAlpha(Double(color.a) / 255 / 5 * 1.6))
            }
            // Five layers each round once in 8 bits, in the mask or in the picture: 3 of 255 at
            // most; an eighth of a pixel's move of the faint outer edges adds up to 3 more.
            let comparison = ImageComparison(masked.copied(as: .argb8888), stacked.copied(as: .argb8888), tolerance: tolerance)
            XCTAssertEqual(comparison.differingPixels, 0, "\(rect) scale \(scale): max difference \(comparison.maxChannelDifference)")
        }
    }

    /// Whether two ways of drawing give the same bytes on one background, through a canvas
    /// of `scale` and `opacity` clipped to `clip` (pixels).
    func sameDrawing(scale: Double, clip: PixelRect, opacity: Double, _ one: (Canvas) -> Void, _ other: (Canvas) -> Void) -> Bool {
        let clipRect = Rect(Double(clip.x) / scale, Double(clip.y) / scale, Double(clip.width) / scale, Double(clip.height) / scale)
        func drawn(_ draw: (Canvas) -> Void) -> Surface {
            let s = Surface(width: 800, height: 700, format: .xrgb8888)
            s.clear(s.bounds, to: Color(hex: 0xC8D0E0))
            var c = Canvas(surface: s, scale: scale).clipped(to: clipRect)
            c.opacity = opacity
            draw(c)
            return s
        }
        let a = drawn(one), b = drawn(other)
        return memcmp(a.pixels, b.pixels, a.byteCount) == 0
    }

    /// A panel on its shadow leaves the shadow out under the panel's middle where the
    /// panel is opaque: byte for byte the shadow drawn whole and the panel over it.
    func testPanelOnItsShadowMatchesTheShadowThenThePanel() {
        let rects = [Rect(40.25, 30.75, 200.5, 120.25), Rect(100, 80, 420, 560), Rect(-30.4, 500.6, 300, 200),
                     Rect(300, 200, 20, 14)]  // the last: its radius leaves no middle
        let clips = [PixelRect(0, 0, 800, 700), PixelRect(120, 150, 300, 250)]
        for (rect, scale) in rects.flatMap({ r in [(r, 1.0), (r, 1.5)] }) {
            for clip in clips {
                for (fill, opacity) in [(Color(hex: 0x2F6FD0), 1.0), (Color(hex: 0xF0B040), 0.7),
                                        (Color(r: 250, g: 250, b: 250, a: 200), 1.0)] {
                    let shadow = Shadow(blur: 12, offsetY: 6)
                    XCTAssertTrue(sameDrawing(scale: scale, clip: clip, opacity: opacity, { a in
                        a.fillRoundedRect(rect, radius: 22, fill, shadow: shadow)
                    }, { b in
                        b.shadow(rect, radius: 22, blur: shadow.blur, offsetY: shadow.offsetY, color: shadow.color)
                        b.fillRoundedRect(rect, radius: 22, fill)
                    }), "\(rect) scale \(scale) clip \(clip) \(fill) opacity \(opacity)")
                }
            }
        }
        XCTAssertEqual(PixelRect(0, 0, 10, 10).subtracting(PixelRect(2, 3, 4, 5)).reduce(0) { $0 + $1.area }, 80)
        XCTAssertEqual(PixelRect(0, 0, 10, 10).subtracting(PixelRect(20, 20, 4, 4)), [PixelRect(0, 0, 10, 10)])
        XCTAssertEqual(PixelRect(0, 0, 10, 10).subtracting(PixelRect(-5, -5, 30, 30)), [])
    }

    /// Stacked in argb8888 (pixman's fast paths) and kept as a8: the very bytes of the
    /// layers stacked in a8.
    func testMaskStackedInArgbIsTheA8Stack() {
        for (rect, radius, blur, alpha) in [(Rect(8.25, 8.5, 100, 60.75), 14.0, 8.0, UInt8(29)), (Rect(27, 18, 402.5, 300), 49.5, 27, 23),
                                            (Rect(9, 4.5, 40, 18), 22.5, 9, 16), (Rect(2, 3, 300, 12), 4, 2, 200)] {
            let key = ShadowMasks.Key(rect: rect, radius: radius, blur: blur, alpha: alpha)
            let a = ShadowMasks.draw(key, stackedIn: .argb8888)!, b = ShadowMasks.draw(key, stackedIn: .a8)!
            XCTAssertEqual(memcmp(a.pixels, b.pixels, a.byteCount), 0, "\(rect) radius \(radius) blur \(blur) alpha \(alpha)")
        }
    }

    func testOneMaskPerSizeWherever() {
        let key = { (x: Double) in ShadowMasks.Key(rect: Rect(x, 8, 100, 60), radius: 14, blur: 8, alpha: 29) }
        let a = ShadowMasks.shared.mask(key(8)), b = ShadowMasks.shared.mask(key(8))
        XCTAssertNotNil(a)
        XCTAssertTrue(a === b, "the second shadow of a size reuses the mask")
        XCTAssertFalse(a === ShadowMasks.shared.mask(key(8.5)), "another sub-pixel position is another mask")
    }
}

/// Opaque vertical gradients are filled row by row from a one-pixel column pixman works
/// out (`fillOpaqueRows`): the pixels must be exactly those of compositing pixman's
/// gradient over the whole rectangle, as Canvas did before; translucent ones still are.
final class GradientRowsTests: XCTestCase {
    func compositeWhole(_ rect: Rect, top: Color, bottom: Color, on s: Surface, scale: Double, clip: PixelRect) {
        let px = Rect(rect.x * scale, rect.y * scale, rect.width * scale, rect.height * scale)
        var p1 = pixman_point_fixed_t(x: 0, y: fixed(px.minY)), p2 = pixman_point_fixed_t(x: 0, y: fixed(px.maxY))
        var stops = [pixman_gradient_stop_t(x: 0, color: top.pixmanColor),
                     pixman_gradient_stop_t(x: 1 << 16, color: bottom.pixmanColor)]
        let gradient = pixman_image_create_linear_gradient(&p1, &p2, &stops, 2)!
        let r = px.enclosingPixels.intersection(clip)
        var region = pixman_region32_t()
        pixman_region32_init_rect(&region, Int32(clip.x), Int32(clip.y), UInt32(clip.width), UInt32(clip.height))
        pixman_image_set_clip_region32(s.pixmanImage, &region)
        pixman_image_composite32(PIXMAN_OP_OVER, gradient, nil, s.pixmanImage, Int32(r.x), Int32(r.y), 0, 0,
                                 Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        pixman_image_set_clip_region32(s.pixmanImage, nil)
        pixman_region32_fini(&region)
        pixman_image_unref(gradient)
    }

    func testRowsMatchTheWholeCompositeByteForByte() {
        let cases: [(Rect, Double)] = [(Rect(0, 0, 800, 640), 1), (Rect(13.3, 7.6, 501.2, 333.9), 1),
                                       (Rect(-20, 300.5, 900, 500), 1), (Rect(10, 20, 300, 200), 1.5)]
        let clips = [PixelRect(0, 0, 800, 640), PixelRect(37, 41, 513, 300), PixelRect(0, 400, 800, 1)]
        let colors = [(Color(hex: 0x2E7D32), Color(hex: 0x9CCC65)), (Color(hex: 0x101020), Color(hex: 0xFFF0C0)),
                      (Color(r: 0, g: 0, b: 0, a: 60), Color(r: 0, g: 0, b: 0, a: 0))]  // translucent: the old path
        for format in [PixelFormat.xrgb8888, .argb8888] {
            for (rect, scale) in cases {
                for clip in clips {
                    for (top, bottom) in colors {
                        let rows = Surface(width: 800, height: 640, format: format)
                        let whole = Surface(width: 800, height: 640, format: format)
                        for s in [rows, whole] { s.clear(s.bounds, to: Color(hex: 0x405060)) }
                        let canvas = Canvas(surface: rows, scale: scale)
                            .clipped(to: Rect(Double(clip.x) / scale, Double(clip.y) / scale,
                                              Double(clip.width) / scale, Double(clip.height) / scale))
                        canvas.fillVerticalGradient(rect, top: top, bottom: bottom)
                        compositeWhole(rect, top: top, bottom: bottom, on: whole, scale: scale, clip: canvas.clip)
                        XCTAssertEqual(memcmp(rows.pixels, whole.pixels, rows.byteCount), 0,
                                       "\(format) \(rect) scale \(scale) clip \(clip) \(top)-\(bottom)")
                    }
                }
            }
        }
    }
}

/// Big ellipses are composited through a kept coverage mask from their second drawing at
/// a size and place within a pixel: byte for byte what rasterizing them again gives.
final class EllipseMaskTests: XCTestCase {
    func testMaskedEllipseMatchesRasterizingByteForByte() {
        let cases: [(Rect, Double)] = [(Rect(100.3, 80.6, 301.7, 301.7), 1), (Rect(40.25, 30.5, 180, 120.4), 2.25),
                                       (Rect(-60.6, 500.2, 250, 200), 1)]  // past the edge
        let clips = [PixelRect(0, 0, 800, 640), PixelRect(150, 120, 200, 180)]
        for (rect, scale) in cases {
            for clip in clips {
                for color in [Color(hex: 0x3366CC), Color.white.withAlpha(0.16)] {
                    let clipRect = Rect(Double(clip.x) / scale, Double(clip.y) / scale,
                                        Double(clip.width) / scale, Double(clip.height) / scale)
                    var drawn: [Surface] = []
                    for _ in 0..<3 {  // rasterized (asked once), mask made, mask kept
                        let s = Surface(width: 800, height: 640, format: .xrgb8888)
                        s.clear(s.bounds, to: Color(hex: 0x405060))
                        Canvas(surface: s, scale: scale).clipped(to: clipRect).fillEllipse(rect, color)
                        drawn.append(s)
                    }
                    for s in drawn.dropFirst() {
                        XCTAssertEqual(memcmp(s.pixels, drawn[0].pixels, s.byteCount), 0, "\(rect) scale \(scale) clip \(clip) \(color)")
                    }
                }
            }
        }
        // Moved by whole pixels: the same pixels, moved.
        let a = Surface(width: 400, height: 400, format: .xrgb8888), b = Surface(width: 400, height: 400, format: .xrgb8888)
        for s in [a, b] { s.clear(s.bounds, to: Color(hex: 0x405060)) }
        Canvas(surface: a).fillEllipse(Rect(20.4, 30.7, 150.5, 99.3), Color(hex: 0xE0A030))
        for s in [Surface(width: 400, height: 400, format: .xrgb8888), b] {  // the second from the mask
            Canvas(surface: s).fillEllipse(Rect(27.4, 33.7, 150.5, 99.3), Color(hex: 0xE0A030))
        }
        for y in 0..<300 {
            XCTAssertEqual(memcmp(a.pixels + y * a.stride, b.pixels + (y + 3) * b.stride + 7 * 4, 250 * 4), 0, "row \(y)")
        }
        XCTAssertTrue(EllipseMasks.shared.keeps(EllipseMasks.Key(phaseX: 0.4, phaseY: 0.7, width: 150.5, height: 99.3)))
    }
}

/// A rounded border is drawn with its straight sides' rows as strips rasterized once: byte
/// for byte one pixman call over all its triangles, as Canvas drew it before.
final class RoundedRingTests: XCTestCase {
    func testRingMatchesItsTrianglesInOneCallByteForByte() {
        let cases: [(Rect, Double, Double, Double)] = [
            (Rect(40.3, 30.6, 500.2, 400.9), 24, 3, 1), (Rect(20.25, 10.5, 300, 200.25), 24, 3, 2.25),
            (Rect(100, 100, 200, 150), 10, 2, 1), (Rect(-30.4, 300.6, 400, 300), 18, 5.5, 1),  // past the edge
            (Rect(50, 50, 40, 300), 20, 4, 1),  // radius as wide as it: no straight top
            (Rect(60.5, 60.5, 12, 80), 3, 5, 1),  // sides touching: one call
            (Rect(300, 200, 100, 30), 14, 2, 1),  // too short for strips
        ]
        let clips = [PixelRect(0, 0, 800, 640), PixelRect(37, 41, 513, 300), PixelRect(0, 400, 800, 7)]
        for (rect, radius, width, scale) in cases {
            for clip in clips {
                for color in [Color(hex: 0xE8D2A6), Color(r: 250, g: 120, b: 30, a: 140)] {
                    let ring = Surface(width: 800, height: 640, format: .xrgb8888)
                    let whole = Surface(width: 800, height: 640, format: .xrgb8888)
                    for s in [ring, whole] { s.clear(s.bounds, to: Color(hex: 0x202830)) }
                    let clipRect = Rect(Double(clip.x) / scale, Double(clip.y) / scale, Double(clip.width) / scale,
                                        Double(clip.height) / scale)
                    let canvas = Canvas(surface: ring, scale: scale).clipped(to: clipRect)
                    canvas.strokeRoundedRect(rect, radius: radius, width: width, color)
                    let outlines = canvas.roundedRing(rect, radius: radius, width: width)
                    let tris = Canvas.ringTriangles(outer: outlines.outer, inner: outlines.inner)
                    var pc = color.pixmanColor
                    let src = pixman_image_create_solid_fill(&pc)!
                    var region = pixman_region32_t()
                    pixman_region32_init_rect(&region, Int32(canvas.clip.x), Int32(canvas.clip.y),
                                              UInt32(canvas.clip.width), UInt32(canvas.clip.height))
                    pixman_image_set_clip_region32(whole.pixmanImage, &region)
                    tris.withUnsafeBufferPointer { buf in
                        pixman_composite_triangles(PIXMAN_OP_OVER, src, whole.pixmanImage, PIXMAN_a8, 0, 0, 0, 0,
                                                   Int32(buf.count), buf.baseAddress)
                    }
                    pixman_region32_fini(&region)
                    pixman_image_unref(src)
                    XCTAssertEqual(memcmp(ring.pixels, whole.pixels, ring.byteCount), 0, "\(rect) radius \(radius) width \(width) scale \(scale) clip \(clip) \(color)")
                }
            }
        }
    }
}
