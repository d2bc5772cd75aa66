import CPixman

/// Draws into a surface in logical points: every call is scaled by `scale` (pixels per
/// point), moved by `origin`, limited to `clip` (pixels) and faded by `opacity`.
/// Shapes are anti-aliased: they are cut into triangles that pixman rasterizes with
/// 8-bit coverage.
public struct Canvas {
    public let surface: Surface
    public var scale: Double
    /// Where the point (0, 0) of the current view lands, in surface pixels.
    public var origin: Point = .zero
    public var clip: PixelRect
    public var opacity: Double = 1

    public init(surface: Surface, scale: Double = 1) {
        self.surface = surface
        self.scale = scale
        self.clip = surface.bounds
    }

    /// A canvas for a child: moved by `offset` points and clipped further.
    public func translated(by offset: Point) -> Canvas {
        var c = self
        c.origin = Point(origin.x + offset.x * scale, origin.y + offset.y * scale)
        return c
    }

    public func clipped(to rect: Rect) -> Canvas {
        var c = self
        c.clip = clip.intersection(pixelRect(rect))
        return c
    }

    /// The surface pixels a rect in points covers.
    public func pixelRect(_ rect: Rect) -> PixelRect {
        Rect(origin.x + rect.x * scale, origin.y + rect.y * scale,
             rect.width * scale, rect.height * scale).enclosingPixels
    }

    func toPixels(_ p: Point) -> Point {
        Point(origin.x + p.x * scale, origin.y + p.y * scale)
    }

    /// The pixels a rect in points covers whole, or nil when one of its edges falls inside
    /// a pixel (then `fill` anti-aliases that edge).
    public func wholePixels(_ rect: Rect) -> PixelRect? {
        let px = toPixelsRect(rect)
        guard px.x == px.x.rounded() && px.y == px.y.rounded()
            && px.width == px.width.rounded() && px.height == px.height.rounded() else { return nil }
        return px.enclosingPixels
    }

    // MARK: - Clipping state on the shared pixman image

    private func withClip(_ body: () -> Void) {
        guard !clip.isEmpty else { return }
        var region = pixman_region32_t()
        pixman_region32_init_rect(&region, Int32(clip.x), Int32(clip.y),
                                  UInt32(clip.width), UInt32(clip.height))
        pixman_image_set_clip_region32(surface.image, &region)
        body()
        pixman_image_set_clip_region32(surface.image, nil)
        pixman_region32_fini(&region)
    }

    // MARK: - Solid shapes

    /// Whether anything drawn inside `rect` (points) can land in the clip: a shape wholly
    /// outside is not outlined at all (a big redraw drawn in bands asks every shape once a
    /// band, and most miss most bands).
    func reaches(_ rect: Rect) -> Bool {
        pixelRect(rect).intersects(clip)
    }

    public func fill(_ rect: Rect, _ color: Color) {
        let c = color.fading(opacity)
        guard c.a > 0 else { return }
        // Pixel-aligned rectangles take pixman's fast fill; others go through triangles.
        if let whole = wholePixels(rect) {
            let r = whole.intersection(clip)
            guard !r.isEmpty else { return }
            withClip {
                var pc = c.pixmanColor
                var box = pixman_box32_t(x1: Int32(r.x), y1: Int32(r.y), x2: Int32(r.maxX), y2: Int32(r.maxY))
                pixman_image_fill_boxes(c.a == 255 ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, surface.image, &pc, 1, &box)
            }
            return
        }
        let px = toPixelsRect(rect)
        fillPolygonPixels([Point(px.minX, px.minY), Point(px.maxX, px.minY),
                           Point(px.maxX, px.maxY), Point(px.minX, px.maxY)], c)
    }

    public func fillRoundedRect(_ rect: Rect, radius: Double, _ color: Color) {
        guard reaches(rect) else { return }
        fillPolygonPixels(roundedRectOutline(toPixelsRect(rect), radius * scale), color.fading(opacity))
    }

    /// A rounded panel on its soft shadow. Where the panel is opaque, its shadow is not
    /// composited under the panel's middle (the cross of the rect inset by the corner
    /// radius across and down, which the panel covers whole): the same pixels, without
    /// blending a panel's area of shadow only to paint over it (most of the shadows' work
    /// on the 1920x1080 menu).
    public func fillRoundedRect(_ rect: Rect, radius: Double, _ color: Color, shadow: Shadow?) {
        guard let shadow else { return fillRoundedRect(rect, radius: radius, color) }
        self.shadow(rect, radius: radius, blur: shadow.blur, offsetY: shadow.offsetY, color: shadow.color,
                    hidden: solidMiddle(rect, radius: radius, color))
        fillRoundedRect(rect, radius: radius, color)
    }

    /// The pixels a rounded rect of `color` paints opaque whole (the cross of the rect inset
    /// by the radius across and down), none where the colour is not opaque.
    private func solidMiddle(_ rect: Rect, radius: Double, _ color: Color) -> [PixelRect] {
        guard color.fading(opacity).a == 255 else { return [] }
        return [wholePixelsInside(rect.insetBy(0, radius)), wholePixelsInside(rect.insetBy(radius, 0))].compactMap { $0 }
    }

    public func strokeRoundedRect(_ rect: Rect, radius: Double, width: Double, _ color: Color) {
        guard reaches(rect) else { return }
        let ring = roundedRing(rect, radius: radius, width: width)
        fillRoundedRing(outer: ring.outer, inner: ring.inner, cornerPoints: ring.cornerPoints, color.fading(opacity))
    }

    /// A rounded border's outer and inner outlines in pixels, as many points a corner.
    func roundedRing(_ rect: Rect, radius: Double, width: Double) -> (outer: [Point], inner: [Point], cornerPoints: Int) {
        let px = toPixelsRect(rect)
        let w = width * scale
        let n = segments(forRadius: radius * scale) / 2 + 2
        return (roundedRectOutline(px, radius * scale, segments: n),
                roundedRectOutline(px.insetBy(w, w), max(0, radius * scale - w), segments: n), n + 1)
    }

    public func fillEllipse(_ rect: Rect, _ color: Color) {
        guard reaches(rect) else { return }
        let px = toPixelsRect(rect)
        let color = color.fading(opacity)
        guard min(px.width, px.height) >= EllipseMasks.smallest, color.a > 0 else {
            return fillPolygonPixels(ellipseOutline(px), color)
        }
        let x = Int(px.minX.rounded(.down)), y = Int(px.minY.rounded(.down))
        let key = EllipseMasks.Key(phaseX: px.minX - Double(x), phaseY: px.minY - Double(y), width: px.width, height: px.height)
        guard let mask = EllipseMasks.shared.mask(key, outline: { ellipseOutline($0) }), let fill = SolidFill(color) else {
            // Asked for once so far, or too big to keep: drawn at the same relative place.
            return fillPolygonPixels(ellipseOutline(key.rect), color, movedBy: (x, y))
        }
        drawMask(mask, atPixel: x, y, fill)
    }

    public func fillCircle(center: Point, radius: Double, _ color: Color) {
        fillEllipse(Rect(center.x - radius, center.y - radius, 2 * radius, 2 * radius), color)
    }

    public func strokeEllipse(_ rect: Rect, width: Double, _ color: Color) {
        guard reaches(rect) else { return }
        let px = toPixelsRect(rect)
        let w = width * scale
        let n = ellipseSegments(px)
        fillRingPixels(outer: ellipseOutline(px, segments: n), inner: ellipseOutline(px.insetBy(w, w), segments: n),
                       color.fading(opacity))
    }

    /// A line with square-cut ends `width` points wide.
    public func line(from a: Point, to b: Point, width: Double, _ color: Color) {
        let p = toPixels(a), q = toPixels(b)
        let len = p.distance(to: q)
        guard len > 0 else { return }
        let h = width * scale / 2
        let nx = -(q.y - p.y) / len * h, ny = (q.x - p.x) / len * h
        fillPolygonPixels([Point(p.x + nx, p.y + ny), Point(q.x + nx, q.y + ny),
                           Point(q.x - nx, q.y - ny), Point(p.x - nx, p.y - ny)], color.fading(opacity))
    }

    /// A convex polygon (points in drawing order).
    public func fillPolygon(_ points: [Point], _ color: Color) {
        fillPolygonPixels(points.map(toPixels), color.fading(opacity))
    }

    /// A soft shadow under a panel: stacked, growing translucent rounded rects. The stack
    /// is drawn once per size into an a8 mask (`ShadowMasks`) and composited from there:
    /// layers of one colour stacked with OVER are one OVER of that colour through their
    /// combined coverage, and a screen of cards shares a few sizes.
    public func shadow(_ rect: Rect, radius: Double, blur: Double = Shadow.standard.blur,
                       offsetY: Double = Shadow.standard.offsetY, color: Color = Shadow.standard.color) {
        shadow(rect, radius: radius, blur: blur, offsetY: offsetY, color: color, hidden: [])
    }

    /// The shadow, left out of `hidden` (pixels something opaque covers next).
    private func shadow(_ rect: Rect, radius: Double, blur: Double, offsetY: Double, color: Color, hidden: [PixelRect]) {
        let layer = color.withAlpha(Double(color.a) / 255 / Double(ShadowMasks.steps) * 1.6).fading(opacity)
        guard layer.a > 0 else { return }
        let outer = toPixelsRect(rect.offsetBy(0, offsetY).insetBy(-blur, -blur))
        let x = Int(outer.x.rounded(.down)), y = Int(outer.y.rounded(.down))
        let key = ShadowMasks.Key(rect: toPixelsRect(rect.offsetBy(0, offsetY)).offsetBy(-Double(x), -Double(y)),
                                  radius: radius * scale, blur: blur * scale, alpha: layer.a)
        guard let mask = ShadowMasks.shared.mask(key), let fill = SolidFill(layer.withAlpha(1)) else { return }
        drawMask(mask, atPixel: x, y, fill, except: hidden)
    }

    /// A vertical gradient from `top` to `bottom` colour.
    public func fillVerticalGradient(_ rect: Rect, top: Color, bottom: Color) {
        let px = toPixelsRect(rect)
        let r = px.enclosingPixels.intersection(clip)
        guard !r.isEmpty else { return }
        var p1 = pixman_point_fixed_t(x: 0, y: fixed(px.minY))
        var p2 = pixman_point_fixed_t(x: 0, y: fixed(px.maxY))
        let topColor = top.fading(opacity), bottomColor = bottom.fading(opacity)
        var stops = [
            pixman_gradient_stop_t(x: 0, color: topColor.pixmanColor),
            pixman_gradient_stop_t(x: 1 << 16, color: bottomColor.pixmanColor),
        ]
        guard let gradient = pixman_image_create_linear_gradient(&p1, &p2, &stops, 2) else { return }
        defer { pixman_image_unref(gradient) }
        if topColor.a == 255 && bottomColor.a == 255 && surface.format.bytesPerPixel == 4 {
            fillOpaqueRows(r, gradient)
            return
        }
        withClip {
            pixman_image_composite32(PIXMAN_OP_OVER, gradient, nil, surface.image,
                                     Int32(r.x), Int32(r.y), 0, 0, Int32(r.x), Int32(r.y),
                                     Int32(r.width), Int32(r.height))
        }
    }

    /// An opaque vertical gradient over `r` (pixels, inside the clip) on a 32-bit surface:
    /// each row is one colour and OVER is SRC, so pixman works the colours out in a
    /// one-pixel column, as it would for each of the row's pixels, and each row is a fill.
    /// A row whose centre lies outside the gradient (a fractional edge) gets nothing from
    /// it, as before: a second column, with alpha, tells which. Composited whole, pixman's
    /// gradient went through its general path pixel by pixel: a third of a 1920x1080 menu
    /// frame's instructions (callgrind), the fills a tenth of that.
    private func fillOpaqueRows(_ r: PixelRect, _ gradient: OpaquePointer) {
        func column(_ format: pixman_format_code_t) -> [UInt32] {
            var values = [UInt32](repeating: 0, count: r.height)
            values.withUnsafeMutableBufferPointer { rows in
                guard let image = pixman_image_create_bits(format, 1, Int32(r.height), rows.baseAddress, 4) else { return }
                pixman_image_composite32(PIXMAN_OP_SRC, gradient, nil, image, Int32(r.x), Int32(r.y), 0, 0, 0, 0,
                                         1, Int32(r.height))
                pixman_image_unref(image)
            }
            return values
        }
        let coverage = column(PIXMAN_a8r8g8b8), values = column(surface.format.pixmanFormat)
        let bits = surface.pixels.assumingMemoryBound(to: UInt32.self)
        for i in 0..<r.height where coverage[i] >> 24 != 0 {
            if coverage[i] >> 24 == 0xFF {
                pixman_fill(bits, Int32(surface.stride / 4), 32, Int32(r.x), Int32(r.y + i), Int32(r.width), 1, values[i])
            } else {  // not with opaque stops; composited as before all the same
                pixman_image_composite32(PIXMAN_OP_OVER, gradient, nil, surface.image, Int32(r.x), Int32(r.y + i),
                                         0, 0, Int32(r.x), Int32(r.y + i), Int32(r.width), 1)
            }
        }
    }

    // MARK: - Images

    /// Draws a premultiplied image into `rect` (points), scaled with bilinear filtering,
    /// turned by `rotation` radians about the rect's centre, faded by `alpha`.
    public func drawImage(_ image: Surface, in rect: Rect, rotation: Double = 0, alpha: Double = 1) {
        let a = alpha * opacity
        guard a > 0.004, !rect.isEmpty else { return }
        let px = toPixelsRect(rect)
        let sx = Double(image.width) / px.width, sy = Double(image.height) / px.height
        let cx = px.midX, cy = px.midY
        let cosR = cos(rotation), sinR = sin(rotation)
        // Bounds of the turned rect, where pixman has to work.
        let hw = px.width / 2, hh = px.height / 2
        let ex = abs(hw * cosR) + abs(hh * sinR), ey = abs(hw * sinR) + abs(hh * cosR)
        let covered = Rect(cx - ex, cy - ey, 2 * ex, 2 * ey).enclosingPixels
        let area = covered.intersection(clip)
        guard !area.isEmpty else { return }
        // Destination pixel -> source pixel: untranslate, unrotate, unscale. Worked out from
        // the covered pixels' top-left corner, then moved there in pixman's fixed point, so
        // the same drawing moved by whole pixels has the same numbers (and the same copy).
        let m00 = cosR * sx, m01 = sinR * sx
        let m10 = -sinR * sy, m11 = cosR * sy
        let lx = cx - Double(covered.x), ly = cy - Double(covered.y)
        var local = pixman_transform_t()
        local.matrix.0 = (fixed(m00), fixed(m01), fixed(Double(image.width) / 2 - (m00 * lx + m01 * ly)))
        local.matrix.1 = (fixed(m10), fixed(m11), fixed(Double(image.height) / 2 - (m10 * lx + m11 * ly)))
        local.matrix.2 = (0, 0, 1 << 16)
        let identity = scaleIsIdentity(m00, m01, m10, m11)
        if rotation == 0 && !identity,
           let copy = ScaledImages.shared.copy(of: image, transform: local, width: covered.width, height: covered.height) {
            compositeFaded(copy, at: (covered.x, covered.y), into: area, alpha: a)
            return
        }
        var t = local
        let (x0, y0) = (Int64(covered.x), Int64(covered.y))
        t.matrix.0.2 = pixman_fixed_t(clamping: Int64(local.matrix.0.2) - Int64(local.matrix.0.0) * x0 - Int64(local.matrix.0.1) * y0)
        t.matrix.1.2 = pixman_fixed_t(clamping: Int64(local.matrix.1.2) - Int64(local.matrix.1.0) * x0 - Int64(local.matrix.1.1) * y0)
        pixman_image_set_transform(image.image, &t)
        pixman_image_set_filter(image.image, identity ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(image.image, PIXMAN_REPEAT_NONE)
        // `area` is inside the clip already: no clip region (setting one costs more than a
        // small sprite's composite).
        compositeFaded(image, at: (0, 0), into: area, alpha: a)
        pixman_image_set_transform(image.image, nil)
    }

    /// OVER of `picture`, its top-left at pixel `origin`, over `area` (inside the clip and
    /// the picture), faded by `alpha`.
    func compositeFaded(_ picture: Surface, at origin: (x: Int, y: Int), into area: PixelRect, alpha: Double) {
        var mask: OpaquePointer? = nil
        if alpha < 0.996 {
            var mc = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(alpha * 65535))
            mask = pixman_image_create_solid_fill(&mc)
        }
        pixman_image_composite32(PIXMAN_OP_OVER, picture.image, mask, surface.image,
                                 Int32(area.x - origin.x), Int32(area.y - origin.y), 0, 0,
                                 Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height))
        if let mask { pixman_image_unref(mask) }
    }

    /// A glyph's a8 coverage mask in `fill`'s colour. The area is cut to the clip here, so pixman needs
    /// no clip region: setting one per glyph cost more than compositing the glyph.
    func drawMask(_ mask: Surface, atPixel x: Int, _ y: Int, _ fill: SolidFill, except hidden: [PixelRect] = []) {
        let area = PixelRect(x, y, mask.width, mask.height).intersection(clip)
        guard !area.isEmpty else { return }
        let parts = hidden.reduce([area]) { parts, hole in parts.flatMap { $0.subtracting(hole) } }
        for part in parts {
            pixman_image_composite32(PIXMAN_OP_OVER, fill.image, mask.image, surface.image,
                                     0, 0, Int32(part.x - x), Int32(part.y - y),
                                     Int32(part.x), Int32(part.y), Int32(part.width), Int32(part.height))
        }
    }

    /// The pixels whose every point lies inside `rect` (points); nil when there are none.
    func wholePixelsInside(_ rect: Rect) -> PixelRect? {
        let px = toPixelsRect(rect)
        let x0 = Int(px.minX.rounded(.up)), y0 = Int(px.minY.rounded(.up))
        let x1 = Int(px.maxX.rounded(.down)), y1 = Int(px.maxY.rounded(.down))
        return x1 > x0 && y1 > y0 ? PixelRect(x0, y0, x1 - x0, y1 - y0) : nil
    }
}

/// A fill that fades from one colour at the top to another at the bottom
/// (`Canvas.fillVerticalGradient`).
public struct VerticalGradient: Sendable, Hashable {
    public var top: Color
    public var bottom: Color
    public init(top: Color, bottom: Color) {
        self.top = top
        self.bottom = bottom
    }
}

/// How a panel's soft shadow looks (`Canvas.shadow`): how far it spreads, how far it falls
/// and its colour.
public struct Shadow: Sendable, Hashable {
    public var blur: Double
    public var offsetY: Double
    public var color: Color
    public static let standard = Shadow(blur: 8, offsetY: 4, color: Color(r: 0, g: 0, b: 0, a: 90))
    /// How far past its panel the shadow can land (points): its layers grow by `blur` and
    /// fall by `offsetY`. A view that draws one needs at least this `visualOutset`, or
    /// redraws of the pixels beyond (damage, bands) leave them out.
    public var reach: Double { blur + abs(offsetY) }
    public init(blur: Double, offsetY: Double, color: Color = Shadow.standard.color) {
        self.blur = blur
        self.offsetY = offsetY
        self.color = color
    }
}

/// A pixman solid-colour source, made once for a line of glyphs; nil when fully transparent.
final class SolidFill {
    let image: OpaquePointer
    init?(_ color: Color) {
        guard color.a > 0 else { return nil }
        var pc = color.pixmanColor
        guard let image = pixman_image_create_solid_fill(&pc) else { return nil }
        self.image = image
    }
    deinit { pixman_image_unref(image) }
}

extension Canvas {

    // MARK: - Geometry helpers (pixels)

    func toPixelsRect(_ r: Rect) -> Rect {
        Rect(origin.x + r.x * scale, origin.y + r.y * scale, r.width * scale, r.height * scale)
    }

    private func scaleIsIdentity(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Bool {
        abs(a - 1) < 1e-6 && abs(b) < 1e-6 && abs(c) < 1e-6 && abs(d - 1) < 1e-6
    }

    private func segments(forRadius r: Double) -> Int {
        max(3, min(32, Int((r * 0.6).rounded(.up))))
    }

    /// `segments` per corner; a stroke passes the same count for both of its outlines.
    private func roundedRectOutline(_ r: Rect, _ radius: Double, segments: Int? = nil) -> [Point] {
        guard r.width > 0, r.height > 0 else { return [] }
        let rad = max(0, min(radius, min(r.width, r.height) / 2))
        let n = segments ?? (self.segments(forRadius: rad) / 2 + 2)
        var pts: [Point] = []
        pts.reserveCapacity(4 * (n + 1))
        let corners = [(r.maxX - rad, r.minY + rad, -Double.pi / 2), (r.maxX - rad, r.maxY - rad, 0),
                       (r.minX + rad, r.maxY - rad, Double.pi / 2), (r.minX + rad, r.minY + rad, Double.pi)]
        for (cx, cy, start) in corners {
            for i in 0...n {
                let t = start + Double.pi / 2 * Double(i) / Double(n)
                pts.append(Point(cx + rad * cos(t), cy + rad * sin(t)))
            }
        }
        return pts
    }

    private func ellipseSegments(_ r: Rect) -> Int {
        max(12, min(128, Int((max(r.width, r.height) * 0.8).rounded(.up))))
    }

    private func ellipseOutline(_ r: Rect, segments: Int? = nil) -> [Point] {
        guard r.width > 0, r.height > 0 else { return [] }
        let n = segments ?? ellipseSegments(r)
        return (0..<n).map { i in
            let t = 2 * Double.pi * Double(i) / Double(n)
            return Point(r.midX + r.width / 2 * cos(t), r.midY + r.height / 2 * sin(t))
        }
    }

    /// A convex outline, cut into horizontal trapezoids: one band between each pair of
    /// vertex heights, so pixman rasterizes every pixel once (a triangle fan would make it
    /// walk the whole shape once per triangle).
    /// `movedBy`: whole pixels added in pixman's fixed point, so the outline lands exactly
    /// where a mask of it drawn at (0, 0) and composited there would.
    private func fillPolygonPixels(_ pts: [Point], _ color: Color, movedBy move: (x: Int, y: Int) = (0, 0)) {
        guard pts.count >= 3, color.a > 0 else { return }
        var low = pts[0], high = pts[0]
        for p in pts {
            low = Point(min(low.x, p.x), min(low.y, p.y))
            high = Point(max(high.x, p.x), max(high.y, p.y))
        }
        let box = Rect(low.x + Double(move.x), low.y + Double(move.y), high.x - low.x, high.y - low.y)
        guard box.enclosingPixels.intersects(clip) else { return }  // outlined for nothing
        let traps = Canvas.trapezoids(convex: pts).map { Canvas.moved($0, by: move) }
        guard !traps.isEmpty else { return }
        withSolidSource(color) { src in
            // A big shape is mostly whole pixels: the tallest band's inside is filled
            // without a mask, and only the rows above and below it and its two edge
            // strips are rasterized. The pieces cover disjoint pixels, each with exactly
            // the coverage the whole outline gives it, so the picture is the same.
            guard let core = Canvas.solidCore(traps) else {
                return compositeTrapezoids(traps, rows: clip.y..<max(clip.y, clip.maxY), src)
            }
            func span(_ from: Int, _ to: Int) -> Range<Int> { from..<max(from, to) }
            compositeTrapezoids(traps, rows: span(clip.y, min(clip.maxY, core.box.y)), src)
            compositeTrapezoids(traps, rows: span(max(clip.y, core.box.maxY), clip.maxY), src)
            let rows = span(max(clip.y, core.box.y), min(clip.maxY, core.box.maxY))
            guard !rows.isEmpty else { return }
            let t = traps[core.index]
            let coreLeft = Canvas.vertical(at: fixed(Double(core.box.x)), t.top, t.bottom)
            let coreRight = Canvas.vertical(at: fixed(Double(core.box.maxX)), t.top, t.bottom)
            compositeStrip(pixman_trapezoid_t(top: t.top, bottom: t.bottom, left: t.left, right: coreLeft), rows: rows, src)
            compositeStrip(pixman_trapezoid_t(top: t.top, bottom: t.bottom, left: coreRight, right: t.right), rows: rows, src)
            let inside = PixelRect(core.box.x, rows.lowerBound, core.box.width, rows.count).intersection(clip)
            if !inside.isEmpty {
                pixman_image_composite32(PIXMAN_OP_OVER, src, nil, surface.image, 0, 0, 0, 0,
                                         Int32(inside.x), Int32(inside.y), Int32(inside.width), Int32(inside.height))
            }
        }
    }

    /// A band's strip beside its solid core, for `rows` that lie wholly inside the band.
    /// Where both its edges are vertical (a panel's sides), every row of the strip has the
    /// same coverage: one row is rasterized and copied down the mask. pixman's rasterizer
    /// costs by the row (15 sub-rows each, whatever the width), so a tall panel's one-pixel
    /// sides were most of its rasterizing. The mask is the one pixman_composite_trapezoids
    /// makes, composited the same way.
    private func compositeStrip(_ t: pixman_trapezoid_t, rows: Range<Int>, _ src: OpaquePointer) {
        guard t.left.p1.x == t.left.p2.x, t.right.p1.x == t.right.p2.x, rows.count > 1 else {
            return compositeTrapezoids([t], rows: rows, src)
        }
        let x0 = Int(t.left.p1.x >> 16), x1 = Int((t.right.p1.x + 0xFFFF) >> 16)
        guard x1 > x0, x0 < clip.maxX, x1 > clip.x else { return }
        guard let mask = pixman_image_create_bits(PIXMAN_a8, Int32(x1 - x0), Int32(rows.count), nil, 0) else { return }
        defer { pixman_image_unref(mask) }
        var row = t
        row.top = fixed(Double(rows.lowerBound))
        row.bottom = fixed(Double(rows.lowerBound + 1))
        pixman_rasterize_trapezoid(mask, &row, Int32(-x0), Int32(-rows.lowerBound))
        let stride = Int(pixman_image_get_stride(mask))
        let bytes = UnsafeMutableRawPointer(pixman_image_get_data(mask)!)
        for y in 1..<rows.count { (bytes + y * stride).copyMemory(from: bytes, byteCount: x1 - x0) }
        pixman_image_composite32(PIXMAN_OP_OVER, src, mask, surface.image, 0, 0, 0, 0,
                                 Int32(x0), Int32(rows.lowerBound), Int32(x1 - x0), Int32(rows.count))
    }

    /// Rasterizes `traps` cut to `rows` (pixman sizes its mask by the trapezoids, not by
    /// the clip: a damaged strip of a big panel should cost a strip) and composites them.
    private func compositeTrapezoids(_ traps: [pixman_trapezoid_t], rows: Range<Int>, _ src: OpaquePointer) {
        guard !rows.isEmpty else { return }
        let top = fixed(Double(rows.lowerBound)), bottom = fixed(Double(rows.upperBound))
        let cut = traps.compactMap { t -> pixman_trapezoid_t? in
            var t = t
            t.top = max(t.top, top)
            t.bottom = min(t.bottom, bottom)
            return t.bottom > t.top ? t : nil
        }
        guard !cut.isEmpty else { return }
        // Bands across a whole shape (a rounded panel's top and bottom): the columns right
        // of every left edge and left of every right edge see no edge, so there only the
        // first and last pixel rows need a mask; the corners are rasterized on their own.
        guard let columns = Canvas.innerColumns(cut), let yTop = cut.map(\.top).min(),
              let yBottom = cut.map(\.bottom).max() else {
            return rasterize(cut, src)
        }
        func vertical(_ x: Int, _ t: pixman_trapezoid_t) -> pixman_line_fixed_t {
            Canvas.vertical(at: fixed(Double(x)), t.top, t.bottom)
        }
        rasterize(cut.map { pixman_trapezoid_t(top: $0.top, bottom: $0.bottom, left: $0.left, right: vertical(columns.lowerBound, $0)) }, src)
        rasterize(cut.map { pixman_trapezoid_t(top: $0.top, bottom: $0.bottom, left: vertical(columns.upperBound, $0), right: $0.right) }, src)
        let middle = cut.map { pixman_trapezoid_t(top: $0.top, bottom: $0.bottom, left: vertical(columns.lowerBound, $0),
                                                  right: vertical(columns.upperBound, $0)) }
        let full = Int((Double(yTop) / 65536).rounded(.up))..<max(Int((Double(yTop) / 65536).rounded(.up)),
                                                                  Int((Double(yBottom) / 65536).rounded(.down)))
        guard !full.isEmpty else { return rasterize(middle, src) }
        rasterize(middle.compactMap { Canvas.cut($0, to: rows.lowerBound..<full.lowerBound) }, src)
        rasterize(middle.compactMap { Canvas.cut($0, to: full.upperBound..<rows.upperBound) }, src)
        let inside = PixelRect(columns.lowerBound, full.lowerBound, columns.count, full.count).intersection(clip)
        if !inside.isEmpty {
            pixman_image_composite32(PIXMAN_OP_OVER, src, nil, surface.image, 0, 0, 0, 0,
                                     Int32(inside.x), Int32(inside.y), Int32(inside.width), Int32(inside.height))
        }
    }

    private func rasterize(_ traps: [pixman_trapezoid_t], _ src: OpaquePointer) {
        guard !traps.isEmpty else { return }
        traps.withUnsafeBufferPointer { buf in
            pixman_composite_trapezoids(PIXMAN_OP_OVER, src, surface.image, PIXMAN_a8,
                                        0, 0, 0, 0, Int32(buf.count), buf.baseAddress)
        }
    }

    /// A vertical edge at `x` from `top` to `bottom` (pixman's fixed point).
    static func vertical(at x: pixman_fixed_t, _ top: pixman_fixed_t, _ bottom: pixman_fixed_t) -> pixman_line_fixed_t {
        pixman_line_fixed_t(p1: pixman_point_fixed_t(x: x, y: top), p2: pixman_point_fixed_t(x: x, y: bottom))
    }

    static func moved(_ t: pixman_trapezoid_t, by move: (x: Int, y: Int)) -> pixman_trapezoid_t {
        guard move != (0, 0) else { return t }
        let dx = pixman_fixed_t(move.x) << 16, dy = pixman_fixed_t(move.y) << 16
        func line(_ l: pixman_line_fixed_t) -> pixman_line_fixed_t {
            pixman_line_fixed_t(p1: pixman_point_fixed_t(x: l.p1.x + dx, y: l.p1.y + dy),
                                p2: pixman_point_fixed_t(x: l.p2.x + dx, y: l.p2.y + dy))
        }
        return pixman_trapezoid_t(top: t.top + dy, bottom: t.bottom + dy, left: line(t.left), right: line(t.right))
    }

    static func cut(_ t: pixman_trapezoid_t, to rows: Range<Int>) -> pixman_trapezoid_t? {
        var t = t
        t.top = max(t.top, fixed(Double(rows.lowerBound)))
        t.bottom = min(t.bottom, fixed(Double(rows.upperBound)))
        return t.bottom > t.top ? t : nil
    }

    /// A band's edge x (pixels) at height `y` (a straight line through two points).
    static func edgeX(_ l: pixman_line_fixed_t, at y: pixman_fixed_t) -> Double {
        let x1 = Double(l.p1.x), y1 = Double(l.p1.y), x2 = Double(l.p2.x), y2 = Double(l.p2.y)
        return (y2 == y1 ? x1 : x1 + (x2 - x1) * (Double(y) - y1) / (y2 - y1)) / 65536
    }

    /// The whole-pixel columns inside every band's left and right edges, when the bands
    /// stack without gaps and the columns are worth a split (16 or more).
    static func innerColumns(_ traps: [pixman_trapezoid_t]) -> Range<Int>? {
        let sorted = traps.sorted { $0.top < $1.top }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.bottom != b.top { return nil }
        var left = -Double.infinity, right = Double.infinity
        for t in traps {
            left = max(left, edgeX(t.left, at: t.top), edgeX(t.left, at: t.bottom))
            right = min(right, edgeX(t.right, at: t.top), edgeX(t.right, at: t.bottom))
        }
        guard left.isFinite, right.isFinite else { return nil }
        let x0 = Int(left.rounded(.up)), x1 = Int(right.rounded(.down))
        return x1 - x0 >= 16 ? x0..<x1 : nil
    }

    /// The tallest trapezoid's box of whole pixels that it covers entirely (whole rows
    /// inside its top and bottom, whole columns right of its left edge and left of its
    /// right edge), when that box is worth a split (at least 16 x 16 pixels).
    static func solidCore(_ traps: [pixman_trapezoid_t]) -> (index: Int, box: PixelRect)? {
        var best: (index: Int, box: PixelRect)?
        for (i, t) in traps.enumerated() {
            let y0 = Int((Double(t.top) / 65536).rounded(.up)), y1 = Int((Double(t.bottom) / 65536).rounded(.down))
            guard y1 - y0 >= 16 else { continue }
            // The edge's x at the trapezoid's top and bottom (a straight line: its extremes).
            func xs(_ l: pixman_line_fixed_t) -> (Double, Double) { (edgeX(l, at: t.top), edgeX(l, at: t.bottom)) }
            let (la, lb) = xs(t.left), (ra, rb) = xs(t.right)
            let x0 = Int(max(la, lb).rounded(.up)), x1 = Int(min(ra, rb).rounded(.down))
            guard x1 - x0 >= 16 else { continue }
            let box = PixelRect(x0, y0, x1 - x0, y1 - y0)
            if box.area > (best?.box.area ?? 0) { best = (i, box) }
        }
        return best
    }

    /// Runs `body` with a solid-colour pixman source, inside the clip.
    private func withSolidSource(_ color: Color, _ body: (OpaquePointer) -> Void) {
        var pc = color.pixmanColor
        guard let src = pixman_image_create_solid_fill(&pc) else { return }
        defer { pixman_image_unref(src) }
        withClip { body(src) }
    }

    static func trapezoids(convex pts: [Point]) -> [pixman_trapezoid_t] {
        let n = pts.count
        var top = 0, bottom = 0
        for i in 0..<n {
            if pts[i].y < pts[top].y { top = i }
            if pts[i].y > pts[bottom].y { bottom = i }
        }
        // The two chains from the top vertex down to the bottom one; in a convex outline
        // each only ever goes down.
        var forward = [pts[top]], backward = [pts[top]]
        var i = top
        while i != bottom { i = (i + 1) % n; forward.append(pts[i]) }
        i = top
        while i != bottom { i = (i - 1 + n) % n; backward.append(pts[i]) }
        let heights = Array(Set(pts.map(\.y))).sorted()
        var traps: [pixman_trapezoid_t] = []
        traps.reserveCapacity(heights.count)
        var a = 0, b = 0
        func line(_ p: Point, _ q: Point) -> pixman_line_fixed_t {
            pixman_line_fixed_t(p1: pixman_point_fixed_t(x: fixed(p.x), y: fixed(p.y)),
                                p2: pixman_point_fixed_t(x: fixed(q.x), y: fixed(q.y)))
        }
        func x(_ p: Point, _ q: Point, at y: Double) -> Double { p.x + (q.x - p.x) * (y - p.y) / (q.y - p.y) }
        for k in 0..<max(0, heights.count - 1) {
            let y0 = heights[k], y1 = heights[k + 1]
            let mid = (y0 + y1) / 2
            while a < forward.count - 2 && forward[a + 1].y <= mid { a += 1 }
            while b < backward.count - 2 && backward[b + 1].y <= mid { b += 1 }
            let f0 = forward[a], f1 = forward[a + 1], b0 = backward[b], b1 = backward[b + 1]
            guard f1.y > f0.y, b1.y > b0.y else { continue }
            let fx = x(f0, f1, at: mid), bx = x(b0, b1, at: mid)
            let (left, right) = fx <= bx ? (line(f0, f1), line(b0, b1)) : (line(b0, b1), line(f0, f1))
            traps.append(pixman_trapezoid_t(top: fixed(y0), bottom: fixed(y1), left: left, right: right))
        }
        return traps
    }

    /// The area between two outlines with the same number of points (strokes).
    private func fillRingPixels(outer: [Point], inner: [Point], _ color: Color) {
        guard outer.count >= 3, color.a > 0 else { return }
        guard inner.count == outer.count else { return fillPolygonPixels(outer, color) }
        rasterize(Canvas.ringTriangles(outer: outer, inner: inner), color)
    }

    /// The triangles between two outlines of as many points (point i of one to point i of
    /// the other).
    static func ringTriangles(outer: [Point], inner: [Point]) -> [pixman_triangle_t] {
        var tris: [pixman_triangle_t] = []
        tris.reserveCapacity(outer.count * 2)
        for i in 0..<outer.count {
            let j = (i + 1) % outer.count
            tris.append(triangle(outer[i], outer[j], inner[j]))
            tris.append(triangle(outer[i], inner[j], inner[i]))
        }
        return tris
    }

    /// A rounded rectangle's border, between outlines of `cornerPoints` points a corner
    /// (`roundedRectOutline`). The pixel rows between its top and bottom corners hold only
    /// its two straight sides, vertical strips with one coverage a row: each is rasterized
    /// for one row and copied down (`compositeStrip`), where rasterizing its two long
    /// triangles cost 15 sub-rows a row (most of a 1080p Guess Picture frame's picture
    /// card). The other rows are rasterized as one pixman call over all the triangles
    /// would, so every pixel gets the coverage it got from that call.
    private func fillRoundedRing(outer: [Point], inner: [Point], cornerPoints k: Int, _ color: Color) {
        guard color.a > 0 else { return }
        guard outer.count == 4 * k, inner.count == outer.count, k >= 1 else { return fillRingPixels(outer: outer, inner: inner, color) }
        // Corner c's points are c*k..<(c+1)*k, clockwise from the top right one; the right
        // side runs from point k-1 to k, the left one from 3k-1 to 3k.
        let topCorners = Array(outer[0..<k]) + outer[(3 * k)...] + inner[0..<k] + inner[(3 * k)...]
        let bottomCorners = Array(outer[k..<(3 * k)]) + inner[k..<(3 * k)]
        let y0 = max(clip.y, Int(topCorners.map(\.y).max()!.rounded(.up)))
        let y1 = min(clip.maxY, Int(bottomCorners.map(\.y).min()!.rounded(.down)))
        // The strips' edges as pixman gets them, each side's two ends at one x.
        let sides = [(outer[3 * k - 1], outer[3 * k], inner[3 * k - 1], inner[3 * k]),
                     (inner[k - 1], inner[k], outer[k - 1], outer[k])].map { l0, l1, r0, r1 in
            (left: fixed(l0.x), leftEnd: fixed(l1.x), right: fixed(r0.x), rightEnd: fixed(r1.x))
        }
        let straight = sides.allSatisfy { $0.left == $0.leftEnd && $0.right == $0.rightEnd && $0.left < $0.right }
        // The two strips' pixel columns apart, so no pixel is composited twice.
        let apart = (sides[0].right + 0xFFFF) >> 16 <= sides[1].left >> 16
        let traps = Canvas.ringTriangles(outer: outer, inner: inner).flatMap(Canvas.trapezoids(triangle:))
        withSolidSource(color) { src in
            guard straight, apart, y1 - y0 >= 2 else {
                return compositeTrapezoids(traps, rows: clip.y..<max(clip.y, clip.maxY), src)
            }
            compositeTrapezoids(traps, rows: clip.y..<y0, src)
            compositeTrapezoids(traps, rows: y1..<max(y1, clip.maxY), src)
            let top = fixed(Double(y0)), bottom = fixed(Double(y1))
            for side in sides {
                compositeStrip(pixman_trapezoid_t(top: top, bottom: bottom, left: Canvas.vertical(at: side.left, top, bottom),
                                                  right: Canvas.vertical(at: side.right, top, bottom)), rows: y0..<y1, src)
            }
        }
    }

    /// A triangle as pixman rasterizes one: cut at its middle vertex's height into a
    /// trapezoid above and one below (none without height), each side on the triangle's
    /// own edges, so the coverage is the triangle's.
    static func trapezoids(triangle t: pixman_triangle_t) -> [pixman_trapezoid_t] {
        let v = [t.p1, t.p2, t.p3].sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        let (a, b, c) = (v[0], v[1], v[2])
        guard c.y > a.y else { return [] }
        func line(_ p: pixman_point_fixed_t, _ q: pixman_point_fixed_t) -> pixman_line_fixed_t { pixman_line_fixed_t(p1: p, p2: q) }
        // Is the middle vertex left of the long edge a-c (y grows downwards)?
        let middleLeft = Int64(c.x - a.x) * Int64(b.y - a.y) - Int64(b.x - a.x) * Int64(c.y - a.y) > 0
        let long = line(a, c)
        var traps: [pixman_trapezoid_t] = []
        if b.y > a.y {
            traps.append(pixman_trapezoid_t(top: a.y, bottom: b.y, left: middleLeft ? line(a, b) : long,
                                            right: middleLeft ? long : line(a, b)))
        }
        if c.y > b.y {
            traps.append(pixman_trapezoid_t(top: b.y, bottom: c.y, left: middleLeft ? line(b, c) : long,
                                            right: middleLeft ? long : line(b, c)))
        }
        return traps
    }

    private static func triangle(_ a: Point, _ b: Point, _ c: Point) -> pixman_triangle_t {
        pixman_triangle_t(p1: pixman_point_fixed_t(x: fixed(a.x), y: fixed(a.y)),
                          p2: pixman_point_fixed_t(x: fixed(b.x), y: fixed(b.y)),
                          p3: pixman_point_fixed_t(x: fixed(c.x), y: fixed(c.y)))
    }

    private func rasterize(_ tris: [pixman_triangle_t], _ color: Color) {
        withSolidSource(color) { src in
            tris.withUnsafeBufferPointer { buf in
                pixman_composite_triangles(PIXMAN_OP_OVER, src, surface.image, PIXMAN_a8,
                                           0, 0, 0, 0, Int32(buf.count), buf.baseAddress)
            }
        }
    }
}

@inline(__always) func fixed(_ v: Double) -> pixman_fixed_t {
    pixman_fixed_t(max(-32767, min(32767, v)) * 65536)
}

#if canImport(Glibc)
import Glibc
#endif

/// Big ellipses' coverage (a8), rasterized once per size and place within a pixel and
/// composited from then on. The outline is worked out relative to the mask's top-left
/// pixel whether or not a mask is kept, so a kept mask gives the very pixels rasterizing
/// again would. A mask is made the second time its key is asked for: an ellipse that
/// changes size every frame (a card's badge as it flips) never makes one.
final class EllipseMasks {
    nonisolated(unsafe) static let shared = EllipseMasks()
    /// Ellipses narrower than this (pixels) are rasterized straight.
    static let smallest = 64.0
    /// Masks bigger than this (bytes) are not kept: an ellipse filling the screen.
    static let largestMask = 512 << 10

    /// The ellipse in pixels relative to its mask's top-left pixel, in 1/256 pixel steps
    /// (drawn there whether a mask is kept or not): tiles laid out at "the same" place
    /// within a pixel, by arithmetic that differs in the last bits, share one mask.
    struct Key: Hashable {
        let phaseX, phaseY, width, height: Int
        init(phaseX: Double, phaseY: Double, width: Double, height: Double) {
            func q(_ v: Double) -> Int { Int((v * 256).rounded()) }
            self.phaseX = q(phaseX); self.phaseY = q(phaseY); self.width = q(width); self.height = q(height)
        }
        var rect: Rect { Rect(Double(phaseX) / 256, Double(phaseY) / 256, Double(width) / 256, Double(height) / 256) }
    }

    private var askedOnce: Set<Key> = []

    func forgetAskings() { askedOnce.removeAll() }

    func keeps(_ key: Key) -> Bool { KeptSurfaces.shared.contains(.ellipse(key)) }

    func mask(_ key: Key, outline: (Rect) -> [Point]) -> Surface? {
        let width = Int(key.rect.maxX.rounded(.up)), height = Int(key.rect.maxY.rounded(.up))
        guard width * height <= EllipseMasks.largestMask else { return nil }
        if !keeps(key) {
            if askedOnce.count > 256 { askedOnce.removeAll() }
            guard askedOnce.remove(key) != nil else {
                askedOnce.insert(key)
                return nil
            }
        }
        return KeptSurfaces.shared.surface(.ellipse(key)) {
            let mask = Surface.kept(width: width, height: height, format: .a8)
            Canvas(surface: mask).fillPolygon(outline(key.rect), Color(r: 0, g: 0, b: 0, a: 255))
            return mask
        }
    }
}

/// The shadows' masks, kept with the other kept surfaces (`KeptSurfaces`).
final class ShadowMasks {
    static let steps = 5
    nonisolated(unsafe) static let shared = ShadowMasks()

    /// A shadow in pixels relative to its mask's top-left pixel, in quarter pixels: a
    /// soft shadow moved by an eighth of a pixel looks the same, and a grid of cards at
    /// fractional positions then shares a few masks instead of one each.
    struct Key: Hashable {
        let x, y, width, height, radius, blur: Int
        let alpha: UInt8
        init(rect: Rect, radius: Double, blur: Double, alpha: UInt8) {
            func q(_ v: Double) -> Int { Int((v * 4).rounded()) }
            x = q(rect.x); y = q(rect.y); width = q(rect.width); height = q(rect.height)
            self.radius = q(radius); self.blur = q(blur); self.alpha = alpha
        }
        func value(_ v: Int) -> Double { Double(v) / 4 }
    }

    func mask(_ key: Key) -> Surface? {
        KeptSurfaces.shared.surface(.shadow(key)) { ShadowMasks.draw(key, stackedIn: .argb8888) }
    }

    /// The stacked layers' coverage. Stacked in `format`, a8 kept: pixman has SIMD paths
    /// for OVER into argb8888 but none into a8, where its general path took 5x as long (a
    /// popping slot's new mask every frame was most of a 1080p Guess Picture frame); the
    /// alpha channel comes out byte for byte the a8 stack (`ShadowMaskTests`).
    static func draw(_ key: Key, stackedIn format: PixelFormat) -> Surface? {
        let blur = key.value(key.blur)
        let panel = Rect(key.value(key.x), key.value(key.y), key.value(key.width), key.value(key.height))
        let width = Int((panel.maxX + blur).rounded(.up)), height = Int((panel.maxY + blur).rounded(.up))
        guard width > 0, height > 0, width <= 8192, height <= 8192 else { return nil }
        // Mapped: masks come and go with the sizes on screen; in the heap they left holes.
        let mask = Surface.kept(width: width, height: height, format: .a8)
        let stack = format == .a8 ? mask : Surface(width: width, height: height, format: format, mapped: true)
        let canvas = Canvas(surface: stack)
        for i in 0..<ShadowMasks.steps {
            let grow = blur * Double(ShadowMasks.steps - i) / Double(ShadowMasks.steps)
            canvas.fillRoundedRect(panel.insetBy(-grow, -grow), radius: key.value(key.radius) + grow,
                                   Color(r: 0, g: 0, b: 0, a: key.alpha))
        }
        if stack !== mask {
            pixman_image_composite32(PIXMAN_OP_SRC, stack.image, nil, mask.image, 0, 0, 0, 0, 0, 0,
                                     Int32(width), Int32(height))
        }
        return mask
    }
}
