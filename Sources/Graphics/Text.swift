/// Text drawing and measuring in logical points.
import CPixman

public enum TextAlignment: Sendable { case left, center, right }

public struct TextStyle: Sendable, Equatable {
    /// Font size in points.
    public var size: Double
    public var weight: FontWeight
    public var color: Color
    public var alignment: TextAlignment
    /// Lines are this many times the size apart.
    public var lineSpacing: Double

    public init(size: Double, weight: FontWeight = .regular, color: Color = .white,
                alignment: TextAlignment = .center, lineSpacing: Double = 1.25) {
        self.size = size
        self.weight = weight
        self.color = color
        self.alignment = alignment
        self.lineSpacing = lineSpacing
    }

    public func with(size: Double? = nil, weight: FontWeight? = nil, color: Color? = nil,
                     alignment: TextAlignment? = nil) -> TextStyle {
        TextStyle(size: size ?? self.size, weight: weight ?? self.weight, color: color ?? self.color,
                  alignment: alignment ?? self.alignment, lineSpacing: lineSpacing)
    }
}

extension FontLibrary {
    /// Width of one line in points at a scale (pixels per point).
    public func measure(_ text: String, style: TextStyle, scale: Double) -> Double {
        width(of: text, pixelSize: pixelSize(style, scale), weight: style.weight) / scale
    }

    func pixelSize(_ style: TextStyle, _ scale: Double) -> Int {
        max(4, Int((style.size * scale).rounded()))
    }

    /// Breaks text into lines no wider than `maxWidth` points: at spaces for words,
    /// anywhere between CJK characters, and inside a word too long for a line.
    public func wrap(_ text: String, style: TextStyle, scale: Double, maxWidth: Double) -> [String] {
        let key = WrapKey(text: text, pixelSize: pixelSize(style, scale), weight: style.weight, limit: maxWidth * scale)
        if let lines = wrapCache.use(key) { return lines }
        let lines = wrapLines(text, pixelSize: key.pixelSize, weight: key.weight, limit: key.limit)
        if wrapCache.count >= FontLibrary.wrapCacheEntries { wrapCache.removeOldest() }
        wrapCache.insert(key, lines, cost: 1)
        return lines
    }

    private func wrapLines(_ text: String, pixelSize px: Int, weight: FontWeight, limit: Double) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0.0
            for token in tokens(paragraph) {
                let tokenWidth = width(of: token[...], pixelSize: px, weight: weight)
                if lineWidth + tokenWidth <= limit || line.isEmpty && tokenWidth <= limit {
                    line += token
                    lineWidth += tokenWidth
                    continue
                }
                if !line.isEmpty {
                    lines.append(String(line.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()))
                }
                line = ""
                lineWidth = 0
                let trimmed = token == " " ? "" : token
                if width(of: trimmed[...], pixelSize: px, weight: weight) <= limit {
                    line = trimmed
                    lineWidth = width(of: trimmed[...], pixelSize: px, weight: weight)
                } else {
                    // A word wider than the line: break it by characters.
                    for ch in trimmed {
                        let w = width(of: String(ch)[...], pixelSize: px, weight: weight)
                        if lineWidth + w > limit && !line.isEmpty {
                            lines.append(line)
                            line = ""
                            lineWidth = 0
                        }
                        line.append(ch)
                        lineWidth += w
                    }
                }
            }
            lines.append(String(line.reversed().drop(while: { $0 == " " }).reversed()))
        }
        return lines
    }

    /// Words, single spaces, and single CJK characters (which may break anywhere).
    private func tokens(_ text: Substring) -> [String] {
        var out: [String] = []
        var word = ""
        for ch in text {
            let isCJK = ch.unicodeScalars.first.map { $0.value >= 0x2E80 && $0.value < 0xA000 || $0.value >= 0xF900 && $0.value < 0xFB00 || $0.value >= 0xFF00 && $0.value < 0xFFF0 } ?? false
            if ch == " " || isCJK {
                if !word.isEmpty { out.append(word); word = "" }
                out.append(String(ch))
            } else {
                word.append(ch)
            }
        }
        if !word.isEmpty { out.append(word) }
        return out
    }
}

/// One line of text as a single a8 mask: each glyph's coverage composited (OVER) where
/// `Canvas.drawText` would put it, relative to the pen's whole-pixel start and the baseline.
final class LineMask {
    let mask: Surface
    /// The mask's top-left pixel, right of the pen and above the baseline.
    let left: Int
    let top: Int
    /// The line's width in pixels (its glyphs' advances).
    let advance: Double

    init(mask: Surface, left: Int, top: Int, advance: Double) {
        self.mask = mask
        self.left = left
        self.top = top
        self.advance = advance
    }
}

extension FontLibrary {
    /// The line drawn into one mask, made at its first use and kept: drawn glyph by glyph,
    /// a line cost a pixman composite per glyph, each paying the call's set-up (the graphics
    /// bench's labels: ~90 composites a frame where four do). Nil when the line has a
    /// colour glyph, a missing one or an advance of a fraction of a pixel: there the glyphs'
    /// rounded positions would depend on where the line starts, so it is drawn glyph by glyph.
    func lineMask(_ text: String, pixelSize px: Int, weight: FontWeight) -> LineMask? {
        let key = LineKey(text: text, pixelSize: px, weight: weight)
        return KeptSurfaces.shared.object(.line(library: serial, key), pixelBytes: { $0.mask.byteCount }) {
            makeLineMask(text, pixelSize: px, weight: weight)
        }
    }

    private func makeLineMask(_ text: String, pixelSize px: Int, weight: FontWeight) -> LineMask? {
        var placed: [(mask: Surface, x: Int, y: Int)] = []
        var pen = 0.0
        for scalar in text.unicodeScalars where !FontLibrary.isInvisible(scalar) {
            guard let glyph = glyph(scalar, pixelSize: px, weight: weight), glyph.color == nil,
                  glyph.advance == glyph.advance.rounded(.down) else { return nil }
            if let mask = glyph.mask { placed.append((mask, Int(pen) + glyph.left, -glyph.top)) }
            pen += glyph.advance
        }
        guard let first = placed.first else { return nil }
        var box = PixelRect(first.x, first.y, first.mask.width, first.mask.height)
        for p in placed.dropFirst() { box = box.union(PixelRect(p.x, p.y, p.mask.width, p.mask.height)) }
        let line = Surface.kept(width: box.width, height: box.height, format: .a8)
        for p in placed {
            pixman_image_composite32(PIXMAN_OP_OVER, p.mask.image, nil, line.image, 0, 0, 0, 0,
                                     Int32(p.x - box.x), Int32(p.y - box.y), Int32(p.mask.width), Int32(p.mask.height))
        }
        return LineMask(mask: line, left: box.x, top: -box.y, advance: pen)
    }
}

extension Canvas {
    /// Draws one line with its baseline at `baseline` (points), aligned about `x`.
    public func drawText(_ text: String, x: Double, baseline: Double, style: TextStyle, fonts: FontLibrary) {
        let px = fonts.pixelSize(style, scale)
        let color = style.color
        let fill = SolidFill(color.fading(opacity))  // one source for the whole line
        let line = fill == nil ? nil : fonts.lineMask(text, pixelSize: px, weight: style.weight)
        var pen = origin.x + x * scale
        switch style.alignment {
        case .left: break
        case .center: pen -= (line?.advance ?? fonts.width(of: text, pixelSize: px, weight: style.weight)) / 2
        case .right: pen -= line?.advance ?? fonts.width(of: text, pixelSize: px, weight: style.weight)
        }
        let base = Int((origin.y + baseline * scale).rounded())
        // From a start left of the screen's edge, rounding goes the other way (-0.5 -> -1).
        if let line, let fill, pen >= 0 {
            drawMask(line.mask, atPixel: Int(pen.rounded()) + line.left, base - line.top, fill)
            return
        }
        drawGlyphs(text, pen: pen, baseline: base, pixelSize: px, style: style, fill: fill, fonts: fonts)
    }

    /// The line glyph by glyph from pen position `pen` (pixels) on baseline row `base`:
    /// what a line mask holds, and the way for lines one cannot hold.
    func drawGlyphs(_ text: String, pen start: Double, baseline base: Int, pixelSize px: Int, style: TextStyle,
                    fill: SolidFill?, fonts: FontLibrary) {
        var pen = start
        for scalar in text.unicodeScalars where !FontLibrary.isInvisible(scalar) {
            guard let glyph = fonts.glyph(scalar, pixelSize: px, weight: style.weight) else {
                pen += Double(px) / 2
                continue
            }
            let gx = Int(pen.rounded()) + glyph.left
            let gy = base - glyph.top
            if let mask = glyph.mask {
                if let fill { drawMask(mask, atPixel: gx, gy, fill) }
            } else if let image = glyph.color {
                var c = self
                c.origin = .zero
                c.scale = 1
                c.drawImage(image, in: Rect(Double(gx), Double(gy), Double(image.width), Double(image.height)),
                            alpha: Double(style.color.a) / 255)
            }
            pen += glyph.advance
        }
    }

    /// Draws text inside a rect: wrapped to its width, the block centred vertically,
    /// each line aligned per the style. Returns the number of lines drawn.
    @discardableResult
    public func drawText(_ text: String, in rect: Rect, style: TextStyle, fonts: FontLibrary,
                         wrap: Bool = true) -> Int {
        let lines = wrap ? fonts.wrap(text, style: style, scale: scale, maxWidth: rect.width) : [text]
        let lineHeight = style.size * style.lineSpacing
        let blockHeight = lineHeight * Double(lines.count - 1) + style.size
        // DejaVu's capitals stand ~0.73 em tall: centre those, not the whole em box.
        var baseline = rect.midY - blockHeight / 2 + style.size * 0.86
        let x: Double
        switch style.alignment {
        case .left: x = rect.minX
        case .center: x = rect.midX
        case .right: x = rect.maxX
        }
        for line in lines {
            drawText(line, x: x, baseline: baseline, style: style, fonts: fonts)
            baseline += lineHeight
        }
        return lines.count
    }

    /// Draws a colour emoji fitted into `rect` (points), centred, keeping its aspect.
    public func drawEmoji(_ emoji: String, in rect: Rect, fonts: FontLibrary, rotation: Double = 0,
                          alpha: Double = 1) {
        guard let scalar = emoji.unicodeScalars.first else { return }
        let side = min(rect.width, rect.height)
        let px = max(1, Int((side * scale).rounded()))
        // Scaled into the rectangle below, so one of a few sizes will do.
        guard let image = fonts.emojiImage(scalar, pixelSize: FontLibrary.pictureSize(min(px, 160))) else { return }
        let aspect = Double(image.width) / Double(image.height)
        let h = side, w = side * aspect
        let fitted = w > rect.width
            ? Rect(center: rect.center, size: Size(rect.width, rect.width / aspect))
            : Rect(center: rect.center, size: Size(w, h))
        drawImage(image, in: fitted, rotation: rotation, alpha: alpha)
    }
}
