import CPixman

/// Surfaces kept up to a byte bound, the least recently used out first (main thread only,
/// like all drawing): the shadows' masks and the cached pictures.
struct RecentSurfaces<Key: Hashable> {
    let byteLimit: Int
    private var entries: [Key: (surface: Surface, lastUse: Int)] = [:]
    private(set) var bytes = 0
    private var uses = 0

    init(byteLimit: Int) { self.byteLimit = byteLimit }

    var count: Int { entries.count }
    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// The surface kept for `key`, or the one `make` makes (kept: one bigger than the bound
    /// is kept alone).
    mutating func surface(_ key: Key, make: () -> Surface?) -> Surface? {
        uses &+= 1
        if let hit = entries[key] {
            entries[key]!.lastUse = uses
            return hit.surface
        }
        guard let made = make() else { return nil }
        while !entries.isEmpty && bytes + made.byteCount > byteLimit {
            let oldest = entries.min { $0.value.lastUse < $1.value.lastUse }!
            bytes -= oldest.value.surface.byteCount
            entries.removeValue(forKey: oldest.key)
        }
        entries[key] = (made, uses)
        bytes += made.byteCount
        return made
    }
}

/// Drawings made once into a picture and composited from then on: for a thing drawn the
/// same many times a frame (a grid of card backs, each a dozen shapes).
final class Pictures {
    nonisolated(unsafe) static let shared = Pictures()
    /// A 1080p Memory grid's card back is ~0.15 MB; a few sizes of a few drawings.
    static let byteLimit = 4 << 20

    /// What a picture is: its name, its size in pixels, where its top-left falls within a
    /// pixel (1/256) and the scale it was drawn at.
    struct Key: Hashable {
        let name: AnyHashable
        let width, height, phaseX, phaseY: Int
        let scale: Double
    }

    var kept = RecentSurfaces<Key>(byteLimit: Pictures.byteLimit)
}

extension Canvas {
    /// This canvas with its origin moved to the nearest whole pixel: a view that draws
    /// with it lands on the same pixel grid wherever it is laid out, so copies of it share
    /// one cached picture (`drawCached`). It moves by half a pixel at most.
    public func snappedToPixels() -> Canvas {
        var c = self
        c.origin = Point(origin.x.rounded(), origin.y.rounded())
        return c
    }

    /// Draws what `draw` draws into `rect` (points; `draw` gets a canvas whose (0, 0) is the
    /// rect's top-left and may draw only inside it) from a picture kept under `name`, drawn
    /// the first time. The same pixels as drawing straight here, to within a step of
    /// rounding: the picture is drawn at this canvas's scale and position within a pixel.
    /// This canvas's opacity fades the picture as one (where its shapes overlap, the lower
    /// ones do not show through a faded upper one). `name` must say everything the drawing
    /// depends on but the size: a string, or a value of a type of its own (cheaper to hash
    /// than a string built every call).
    public func drawCached(_ name: some Hashable, in rect: Rect, _ draw: (Canvas) -> Void) {
        guard opacity > 0.004, !rect.isEmpty else { return }
        let px = toPixelsRect(rect)
        let x = Int(px.minX.rounded(.down)), y = Int(px.minY.rounded(.down))
        let phaseX = px.minX - Double(x), phaseY = px.minY - Double(y)
        let width = Int((px.maxX - Double(x)).rounded(.up)), height = Int((px.maxY - Double(y)).rounded(.up))
        guard width > 0, height > 0, width <= 4096, height <= 4096 else { return }
        let area = PixelRect(x, y, width, height).intersection(clip)
        guard !area.isEmpty else { return }
        let key = Pictures.Key(name: name, width: width, height: height,
                               phaseX: Int((phaseX * 256).rounded()), phaseY: Int((phaseY * 256).rounded()),
                               scale: scale)
        let scale = self.scale
        guard let picture = Pictures.shared.kept.surface(key, make: {
            let s = Surface(width: width, height: height, format: .argb8888)
            var c = Canvas(surface: s, scale: scale)
            c.origin = Point(phaseX, phaseY)
            draw(c)
            return s
        }) else { return }
        compositeFaded(picture, at: (x, y), into: area, alpha: opacity)
    }

    /// A rounded panel on its shadow, with a border inside its edge, from a picture kept per
    /// size, colours and shadow (`drawCached`): for a face many views share, a keyboard's
    /// keys or a row of answer slots (rasterizing each took most of a 1080p Guess Picture
    /// frame). The picture reaches past the panel as far as the shadow does.
    public func drawCachedPanel(_ rect: Rect, radius: Double, _ color: Color, shadow: Shadow? = nil,
                                border: (width: Double, color: Color)? = nil) {
        let margin = shadow.map { $0.reach + 1 } ?? 0
        let name = PanelPicture(color: color, radius: radius, shadow: shadow, borderWidth: border?.width, borderColor: border?.color)
        drawCached(name, in: rect.insetBy(-margin, -margin)) { c in
            let face = Rect(margin, margin, rect.width, rect.height)
            c.fillRoundedRect(face, radius: radius, color, shadow: shadow)
            if let border { c.strokeRoundedRect(face, radius: radius, width: border.width, border.color) }
        }
    }
}

/// What a cached panel's picture depends on besides its size (`drawCachedPanel`). A key
/// of its own: the string that was built instead, colours and shadow described by
/// reflection, was most of a Guess Picture frame (800x480 full: 3.24 ms, 0.75 without).
private struct PanelPicture: Hashable {
    let color: Color
    let radius: Double
    let shadow: Shadow?
    let borderWidth: Double?
    let borderColor: Color?
}

/// Images drawn scaled, kept scaled: an image drawn again at the same size and position
/// within a pixel (a menu icon, a card face, 20 copies of one sprite) is composited from a
/// copy filtered once, not filtered again every time (a bilinear composite costs several
/// times a plain one). Byte for byte what filtering it again gives: the copy is made with
/// the very fixed-point transform `Canvas.drawImage` uses, worked out from the covered
/// pixels' corner, so every pixel samples the image at the same place with the same
/// weights, and OVER of the stored sample is OVER of the sample. Images are taken to keep
/// their pixels once drawn, as every image here does (decoded, rendered or cut once;
/// nothing draws into one again).
final class ScaledImages {
    nonisolated(unsafe) static let shared = ScaledImages()
    static let byteLimit = 6 << 20
    /// Copies bigger than this are not kept (a picture filling the screen).
    static let largestCopy = 1 << 20

    /// What a copy is: its image (held, so its identity cannot pass to another), the
    /// fixed-point scale and translation from the copy's pixels to the image's, its size.
    struct Key: Hashable {
        let image: Surface
        let shape: Shape
        static func == (a: Key, b: Key) -> Bool { a.image === b.image && a.shape == b.shape }
        func hash(into h: inout Hasher) {
            h.combine(ObjectIdentifier(image))
            h.combine(shape)
        }
    }
    struct Shape: Hashable {
        let m00, m11, tx, ty: pixman_fixed_t
        let width, height: Int
    }
    /// A copy asked for once (by the image's serial: not holding the image): it is made at
    /// the second asking, so a sprite gliding by fractions of a pixel (a new shape every
    /// frame) never pays for one.
    struct Seen: Hashable {
        let image: Int
        let shape: Shape
    }

    var kept = RecentSurfaces<Key>(byteLimit: ScaledImages.byteLimit)
    private var seenOnce = Set<Seen>()
    /// Copies made so far (the tests count them).
    private(set) var made = 0

    /// The copy of `image` under `transform` (copy pixel -> image pixel; a scale and a
    /// translation) at `width` x `height`, or nil: asked for once so far, too big, or not
    /// a scale.
    func copy(of image: Surface, transform t: pixman_transform_t, width: Int, height: Int) -> Surface? {
        guard t.matrix.0.1 == 0, t.matrix.1.0 == 0, t.matrix.2 == (0, 0, 1 << 16),
              width > 0, height > 0, width * height * 4 <= ScaledImages.largestCopy else { return nil }
        let shape = Shape(m00: t.matrix.0.0, m11: t.matrix.1.1, tx: t.matrix.0.2, ty: t.matrix.1.2,
                          width: width, height: height)
        return kept.surface(Key(image: image, shape: shape)) {
            let seen = Seen(image: image.serial, shape: shape)
            if seenOnce.insert(seen).inserted {
                if seenOnce.count > 4096 { seenOnce.removeAll(keepingCapacity: true) }
                return nil
            }
            seenOnce.remove(seen)
            made += 1
            let s = Surface(width: width, height: height, format: .argb8888)
            var transform = t
            pixman_image_set_transform(image.image, &transform)
            pixman_image_set_filter(image.image, PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(image.image, PIXMAN_REPEAT_NONE)
            pixman_image_composite32(PIXMAN_OP_SRC, image.image, nil, s.image, 0, 0, 0, 0, 0, 0,
                                     Int32(width), Int32(height))
            pixman_image_set_transform(image.image, nil)
            return s
        }
    }
}
