import CPixman

/// Every picture, mask and copy the drawing code keeps (shadow and ellipse masks, cached
/// pictures, scaled images, emoji pictures, lines of text, glyphs), in one cache under one byte
/// budget, the least recently used out first (main thread only, like all drawing). One
/// budget, not one per kind: each kind's own bound was sized for the moment that kind
/// needs most, and over a day every one of them filled (the 24 h soak at 800x480 held
/// 24 MB of them by its second hour, RSS +6.5 MB over the first).
public final class KeptSurfaces {
    nonisolated(unsafe) public static let shared = KeptSurfaces(byteLimit: KeptSurfaces.smallestBudget)
    /// The budget: 3 bytes a pixel of the largest screen made, 3 MB at least. What keeps
    /// the kiosk at 1280x800 (two 4 MB frames, 7.6 MB of zombie art) under the soak's
    /// 40 MB of RSS all day; a scene that keeps more than this remakes pictures as it draws.
    public static let bytesPerScreenPixel = 3
    public static let smallestBudget = 3 << 20
    /// What an entry costs besides its pixels (its node, key and index slot): entries
    /// without pixels (a line that has to be drawn glyph by glyph) are bounded too.
    static let entryCost = 128

    enum Kind: Int, CaseIterable { case shadow, ellipse, picture, scaled, emoji, line, glyph }
    enum Key: Hashable {
        case shadow(ShadowMasks.Key)
        case ellipse(EllipseMasks.Key)
        case picture(Pictures.Key)
        case scaled(ScaledImages.Key)
        /// A font library's (by its serial) colour picture of a character at a pixel size.
        case emoji(library: Int, scalar: UInt32, pixelSize: Int)
        case line(library: Int, FontLibrary.LineKey)
        case glyph(library: Int, scalar: UInt32, pixelSize: Int, weight: FontWeight)

        var kind: Kind {
            switch self {
            case .shadow: .shadow
            case .ellipse: .ellipse
            case .picture: .picture
            case .scaled: .scaled
            case .emoji: .emoji
            case .line: .line
            case .glyph: .glyph
            }
        }
    }

    private(set) var byteLimit: Int
    private var kept = RecentlyUsed<Key, AnyObject?>()
    private var bytesByKind = [Int](repeating: 0, count: Kind.allCases.count)
    private var countByKind = [Int](repeating: 0, count: Kind.allCases.count)
    private var madeByKind = [Int](repeating: 0, count: Kind.allCases.count)

    init(byteLimit: Int) { self.byteLimit = byteLimit }

    /// Makes the budget fit a screen of `width` x `height` pixels; it never shrinks (a
    /// process that made a bigger screen keeps that screen's budget).
    public func fit(screenWidth width: Int, height: Int) {
        byteLimit = max(byteLimit, KeptSurfaces.bytesPerScreenPixel * width * height)
    }

    /// Another screen is shown (`Screen.show`). What was asked for once on the last screen
    /// counts for nothing on this one: a game's sprites, asked for in its last frame before
    /// it was left and again in its first frame back, were copied then (in fresh pages, in
    /// the frame that answers the finger) and moved on at once; at 1920x1080 those copies
    /// filled the budget and pushed the menu's pictures out, to be made again on the way home.
    public func screenChanged() {
        ScaledImages.shared.forgetAskings()
        EllipseMasks.shared.forgetAskings()
    }

    /// Pixel bytes and entry costs kept now.
    var bytes: Int { kept.cost }
    var count: Int { kept.count }
    func contains(_ key: Key) -> Bool { kept.contains(key) }

    /// The object kept for `key`, or the one `make` makes, kept (nil too, so it is not made
    /// again, unless `keepsNil` is false). One bigger than the budget is kept alone.
    func object<T: AnyObject>(_ key: Key, keepsNil: Bool = true, pixelBytes: (T) -> Int, make: () -> T?) -> T? {
        if let hit = kept.use(key) { return hit.map { $0 as! T } }
        let made = make()
        if made == nil && !keepsNil { return nil }
        madeByKind[key.kind.rawValue] += 1
        let cost = KeptSurfaces.entryCost + (made.map(pixelBytes) ?? 0)
        while !kept.isEmpty && kept.cost + cost > byteLimit {
            guard let old = kept.removeOldest() else { break }
            bytesByKind[old.key.kind.rawValue] -= old.cost
            countByKind[old.key.kind.rawValue] -= 1
        }
        kept.insert(key, made, cost: cost)
        bytesByKind[key.kind.rawValue] += cost
        countByKind[key.kind.rawValue] += 1
        return made
    }

    func surface(_ key: Key, keepsNil: Bool = true, make: () -> Surface?) -> Surface? {
        object(key, keepsNil: keepsNil, pixelBytes: { $0.byteCount }, make: make)
    }

    /// Entries and bytes of one kind.
    func census(_ kind: Kind) -> SurfaceCacheCensus.Entry {
        .init(count: countByKind[kind.rawValue], bytes: bytesByKind[kind.rawValue], made: madeByKind[kind.rawValue])
    }
}

/// What the kept surfaces hold now (entries, bytes), for the soak's memory report.
public struct SurfaceCacheCensus: Sendable {
    public struct Entry: Sendable {
        public var count: Int
        public var bytes: Int
        /// Entries made so far (misses): one kind made again and again is one the budget
        /// is too small for.
        public var made: Int
    }
    public var budget: Int
    public var shadows, ellipses, pictures, scaled, emoji, lines, glyphs: Entry

    public static func current() -> SurfaceCacheCensus {
        let k = KeptSurfaces.shared
        return SurfaceCacheCensus(budget: k.byteLimit, shadows: k.census(.shadow), ellipses: k.census(.ellipse),
                                  pictures: k.census(.picture), scaled: k.census(.scaled),
                                  emoji: k.census(.emoji), lines: k.census(.line), glyphs: k.census(.glyph))
    }

    public var totalBytes: Int { [shadows, ellipses, pictures, scaled, emoji, lines, glyphs].reduce(0) { $0 + $1.bytes } }
}

/// Drawings made once into a picture and composited from then on: for a thing drawn the
/// same many times a frame (a grid of card backs, each a dozen shapes).
enum Pictures {
    /// What a picture is: its name, its size in pixels, where its top-left falls within a
    /// pixel (1/256) and the scale it was drawn at.
    struct Key: Hashable {
        let name: AnyHashable
        let width, height, phaseX, phaseY: Int
        let scale: Double
    }
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
        guard let picture = KeptSurfaces.shared.surface(.picture(key), make: {
            let s = Surface.kept(width: width, height: height, format: .argb8888)
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

    private var seenOnce = Set<Seen>()
    /// Copies made so far (the tests count them).
    private(set) var made = 0

    func forgetAskings() { seenOnce.removeAll(keepingCapacity: true) }

    /// The copy of `image` under `transform` (copy pixel -> image pixel; a scale and a
    /// translation) at `width` x `height`, or nil: asked for once so far, too big, or not
    /// a scale.
    func copy(of image: Surface, transform t: pixman_transform_t, width: Int, height: Int) -> Surface? {
        guard t.matrix.0.1 == 0, t.matrix.1.0 == 0, t.matrix.2 == (0, 0, 1 << 16),
              width > 0, height > 0, width * height * 4 <= ScaledImages.largestCopy else { return nil }
        let shape = Shape(m00: t.matrix.0.0, m11: t.matrix.1.1, tx: t.matrix.0.2, ty: t.matrix.1.2,
                          width: width, height: height)
        // Nil at the first asking is not kept: the second makes the copy.
        return KeptSurfaces.shared.surface(.scaled(Key(image: image, shape: shape)), keepsNil: false) {
            let seen = Seen(image: image.serial, shape: shape)
            if seenOnce.insert(seen).inserted {
                if seenOnce.count > 4096 { seenOnce.removeAll(keepingCapacity: true) }
                return nil
            }
            seenOnce.remove(seen)
            made += 1
            let s = Surface.kept(width: width, height: height, format: .argb8888)
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
