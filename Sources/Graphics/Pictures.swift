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
        let name: String
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
    /// depends on but the size.
    public func drawCached(_ name: String, in rect: Rect, _ draw: (Canvas) -> Void) {
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
        var mask: OpaquePointer? = nil
        if opacity < 0.996 {
            var mc = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(opacity * 65535))
            mask = pixman_image_create_solid_fill(&mc)
        }
        let sx = Int32(area.x - x), sy = Int32(area.y - y)
        pixman_image_composite32(PIXMAN_OP_OVER, picture.image, mask, surface.image, sx, sy, 0, 0,
                                 Int32(area.x), Int32(area.y), Int32(area.width), Int32(area.height))
        if let mask { pixman_image_unref(mask) }
    }
}
