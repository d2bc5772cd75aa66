import CFreeType
import Platform
import Synchronization

/// A missing or unreadable font file, naming the Debian package that ships it.
public struct FontError: Error, CustomStringConvertible {
    public let path: String
    public let package: String
    public let problem: String
    public var description: String {
        "font \(path): \(problem) (install the Debian package \(package))"
    }
}

public enum FontWeight: Sendable, Hashable { case regular, bold }

/// One rendered glyph: a coverage mask (text) or a colour image (emoji), in pixels.
final class Glyph {
    let mask: Surface?
    let color: Surface?
    let left: Int
    let top: Int
    let advance: Double

    init(mask: Surface?, color: Surface?, left: Int, top: Int, advance: Double) {
        self.mask = mask
        self.color = color
        self.left = left
        self.top = top
        self.advance = advance
    }

    var byteCount: Int { (mask?.byteCount ?? 0) + (color?.byteCount ?? 0) }
}

/// The fonts Boardwalk draws with and the cache of their glyphs. Each character is
/// looked up along a fallback chain: DejaVu Sans (Latin), WenQuanYi Micro Hei (CJK),
/// Noto Color Emoji (colour bitmaps, scaled to the text size). Bold text takes DejaVu Sans
/// Bold, then Noto Sans CJK SC Bold (Micro Hei has no bold: Chinese stood regular beside
/// bold Latin).
public final class FontLibrary {
    public struct FontFile: Sendable {
        public let path: String
        public let package: String
        /// The face in a collection (.ttc) file.
        public let index: Int
        public init(path: String, package: String, index: Int = 0) {
            self.path = path
            self.package = package
            self.index = index
        }
    }

    public static let regularFile = FontFile(path: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", package: "fonts-dejavu-core")
    public static let boldFile = FontFile(path: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", package: "fonts-dejavu-core")
    public static let cjkFile = FontFile(path: "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", package: "fonts-wqy-microhei")
    /// Face 2 of the collection is Simplified Chinese (0 is Japanese: other glyph forms).
    public static let cjkBoldFile = FontFile(path: "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", package: "fonts-noto-cjk",
                                             index: 2)
    public static let emojiFile = FontFile(path: "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", package: "fonts-noto-color-emoji")

    private var library: FT_Library?
    private let regular: FT_Face
    private let bold: FT_Face
    private let cjk: FT_Face
    /// Noto Sans CJK's bold face, opened at the first bold Han or CJK-punctuation glyph:
    /// opening it costs ~2.4 MB (1 MB of FreeType's parsed tables, 1.4 MB of the file read),
    /// which a kiosk showing no bold Chinese never needs.
    private let cjkBoldFile: FontFile
    private var cjkBoldFace: FT_Face?
    private var cjkBoldUnreadable = false
    private let emoji: FT_Face

    /// Lines `wrap` made, by text, size and width: a label is wrapped again at every
    /// redraw, and the wrapping (string work per word) cost more than drawing its glyphs.
    struct WrapKey: Hashable {
        let text: String
        let pixelSize: Int
        let weight: FontWeight
        let limit: Double
    }
    var wrapCache = RecentlyUsed<WrapKey, [String]>()
    static let wrapCacheEntries = 512
    /// Lines of outline glyphs drawn once into a mask (`lineMask`), by text, size and
    /// weight, kept with the other kept surfaces (`KeptSurfaces`); nil for a line that
    /// has to be drawn glyph by glyph. A 1280x800 scene's lines take ~0.1-0.3 MB.
    struct LineKey: Hashable {
        let text: String
        let pixelSize: Int
        let weight: FontWeight
    }
    /// This library among others (caches shared by all of them tell theirs apart by it).
    let serial = FontLibrary.made.add(1, ordering: .relaxed).newValue
    private static let made = Atomic<Int>(0)
    /// Glyphs (nil for a character no font has), colour pictures drawn scaled
    /// (`emojiImage`) and lines (`lineMask`) are kept with the other kept surfaces
    /// (`KeptSurfaces`): one budget, the least recently used out first. Every scene of the
    /// kiosk at 800x480 draws with ~900 glyphs (0.35 MB of masks, the soak).

    /// The fonts every Boardwalk needs; throws naming the first missing file.
    public init(regular: FontFile = regularFile, bold: FontFile = boldFile,
                cjk: FontFile = cjkFile, cjkBold: FontFile = cjkBoldFile, emoji: FontFile = emojiFile) throws(FontError) {
        var lib: FT_Library?
        guard FT_Init_FreeType(&lib) == 0, let lib else {
            throw FontError(path: regular.path, package: "libfreetype6", problem: "FreeType failed to start")
        }
        library = lib
        func open(_ file: FontFile) throws(FontError) -> FT_Face {
            guard Files.exists(file.path) else {
                throw FontError(path: file.path, package: file.package, problem: "missing")
            }
            var face: FT_Face?
            let err = FT_New_Face(lib, file.path, FT_Long(file.index), &face)
            guard err == 0, let face else {
                throw FontError(path: file.path, package: file.package, problem: "unreadable (FreeType error \(err))")
            }
            return face
        }
        do throws(FontError) {
            self.regular = try open(regular)
            self.bold = try open(bold)
            self.cjk = try open(cjk)
            guard Files.exists(cjkBold.path) else {
                throw FontError(path: cjkBold.path, package: cjkBold.package, problem: "missing")
            }
            self.cjkBoldFile = cjkBold
            self.emoji = try open(emoji)
        } catch {
            FT_Done_FreeType(lib)
            library = nil
            throw error
        }
    }

    deinit {
        for face in [emoji, cjkBoldFace, cjk, bold, regular] { if let face { FT_Done_Face(face) } }
        if let library { FT_Done_FreeType(library) }
    }

    nonisolated(unsafe) private static var sharedLibrary: FontLibrary?

    /// The process-wide fonts (the kiosk draws from one thread).
    public static func shared() throws(FontError) -> FontLibrary {
        if let lib = sharedLibrary { return lib }
        let lib = try FontLibrary()
        sharedLibrary = lib
        return lib
    }

    /// Characters that take no space and draw nothing (joiners, variation selectors).
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v == 0x200D || v == 0xFE0F || v == 0xFE0E || (v >= 0x1F3FB && v <= 0x1F3FF)
    }

    static func prefersEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isEmojiPresentation || scalar.value >= 0x1F000
    }

    func glyph(_ scalar: Unicode.Scalar, pixelSize: Int, weight: FontWeight) -> Glyph? {
        KeptSurfaces.shared.object(.glyph(library: serial, scalar: scalar.value, pixelSize: pixelSize, weight: weight),
                                   pixelBytes: { $0.byteCount }) {
            render(scalar, pixelSize: pixelSize, weight: weight)
        }
    }

    /// Han, kana, hangul, CJK punctuation and full-width forms: what the CJK faces are for.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2E80...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFFEF, 0x20000...0x3FFFF: true
        default: false
        }
    }

    private func openedCJKBold() -> FT_Face? {
        if let cjkBoldFace { return cjkBoldFace }
        guard !cjkBoldUnreadable, let library else { return nil }
        var face: FT_Face?
        if FT_New_Face(library, cjkBoldFile.path, FT_Long(cjkBoldFile.index), &face) == 0, let face {
            cjkBoldFace = face
            return face
        }
        // Regular Chinese beside bold Latin, rather than no Chinese.
        cjkBoldUnreadable = true
        Log.warning("fonts: \(cjkBoldFile.path) unreadable: bold Chinese is drawn regular")
        return nil
    }

    private func render(_ scalar: Unicode.Scalar, pixelSize: Int, weight: FontWeight) -> Glyph? {
        // Emoji inside text are drawn at their own size, so they are rendered exactly and
        // kept by the glyph cache, apart from the pictures' cache.
        if FontLibrary.prefersEmoji(scalar), let image = renderEmoji(scalar, pixelSize: max(1, Int(Double(pixelSize) * 1.15))) {
            return Glyph(mask: nil, color: image, left: Int(Double(pixelSize) * 0.05),
                         top: Int(Double(pixelSize) * 0.93), advance: Double(image.width) + Double(pixelSize) * 0.1)
        }
        var faces = [weight == .bold ? bold : regular]
        if weight == .bold, FontLibrary.isCJK(scalar), let face = openedCJKBold() { faces.append(face) }
        faces.append(cjk)
        for face in faces {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if index == 0 { continue }
            FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize))
            guard FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_RENDER)) == 0 else { continue }
            let slot = face.pointee.glyph!
            let bitmap = slot.pointee.bitmap
            let advance = Double(slot.pointee.advance.x) / 64
            var mask: Surface? = nil
            if bitmap.width > 0 && bitmap.rows > 0 && bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) {
                let m = Surface.kept(width: Int(bitmap.width), height: Int(bitmap.rows), format: .a8)
                for row in 0..<Int(bitmap.rows) {
                    let src = bitmap.buffer! + row * Int(bitmap.pitch)
                    (m.pixels + row * m.stride).copyMemory(from: src, byteCount: Int(bitmap.width))
                }
                mask = m
            }
            return Glyph(mask: mask, color: nil, left: Int(slot.pointee.bitmap_left),
                         top: Int(slot.pointee.bitmap_top), advance: advance)
        }
        if let image = renderEmoji(scalar, pixelSize: max(1, Int(Double(pixelSize) * 1.15))) {
            return Glyph(mask: nil, color: image, left: 0, top: Int(Double(pixelSize) * 0.93),
                         advance: Double(image.width) + Double(pixelSize) * 0.1)
        }
        return nil
    }

    /// The sizes to ask `emojiImage` for when the picture is drawn scaled into a
    /// rectangle anyway: up to 32 px every size (icons stay sharp, and small pictures cost
    /// little), above that eight sizes an octave (36, 40, ... 64, 72, ... 128, 144, 160),
    /// rounded up (under 1/8 larger). A zoom or a layout a pixel different then reuses a
    /// picture instead of decoding and caching another.
    public static func pictureSize(_ pixelSize: Int) -> Int {
        let p = max(1, pixelSize)
        guard p > 32 else { return p }
        let highBit = Int.bitWidth - 1 - (p - 1).leadingZeroBitCount
        let step = 1 << (highBit - 3)
        return (p + step - 1) / step * step
    }

    /// A colour emoji as a premultiplied image `pixelSize` pixels tall, or nil when the
    /// emoji font has no such character. Kept (`KeptSurfaces`): a scene draws its
    /// pictures every frame, and one drawn again after it went costs a PNG decode.
    public func emojiImage(_ scalar: Unicode.Scalar, pixelSize: Int) -> Surface? {
        let size = max(1, pixelSize)
        return KeptSurfaces.shared.surface(.emoji(library: serial, scalar: scalar.value, pixelSize: size)) {
            renderEmoji(scalar, pixelSize: size)
        }
    }

    /// True when the emoji font has a picture for the character (no rendering).
    public func hasEmoji(_ scalar: Unicode.Scalar) -> Bool {
        FT_Get_Char_Index(emoji, FT_ULong(scalar.value)) != 0
    }

    private func renderEmoji(_ scalar: Unicode.Scalar, pixelSize: Int) -> Surface? {
        let index = FT_Get_Char_Index(emoji, FT_ULong(scalar.value))
        guard index != 0 else { return nil }
        // The colour font has one fixed bitmap strike and no outlines.
        FT_Select_Size(emoji, 0)
        guard FT_Load_Glyph(emoji, index, FT_Int32(FT_LOAD_COLOR)) == 0 else { return nil }
        let bitmap = emoji.pointee.glyph.pointee.bitmap
        guard bitmap.width > 0, bitmap.rows > 0,
              bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue) else { return nil }
        // BGRA bytes, premultiplied: the memory layout of argb8888 on little endian.
        let full = Surface(width: Int(bitmap.width), height: Int(bitmap.rows), format: .argb8888)
        for row in 0..<Int(bitmap.rows) {
            let src = bitmap.buffer! + row * Int(bitmap.pitch)
            (full.pixels + row * full.stride).copyMemory(from: src, byteCount: Int(bitmap.width) * 4)
        }
        let height = pixelSize
        let width = max(1, Int((Double(bitmap.width) * Double(height) / Double(bitmap.rows)).rounded()))
        if width == full.width && height == full.height { return full }
        let scaled = Surface.kept(width: width, height: height, format: .argb8888)
        Canvas(surface: scaled).drawImage(full, in: Rect(0, 0, Double(width), Double(height)))
        return scaled
    }

    // MARK: - Measuring

    /// Pixel width of one line of text at a pixel size.
    public func width(of text: Substring, pixelSize: Int, weight: FontWeight) -> Double {
        var w = 0.0
        for scalar in text.unicodeScalars where !FontLibrary.isInvisible(scalar) {
            w += glyph(scalar, pixelSize: pixelSize, weight: weight)?.advance ?? Double(pixelSize) / 2
        }
        return w
    }

    public func width(of text: String, pixelSize: Int, weight: FontWeight) -> Double {
        width(of: text[...], pixelSize: pixelSize, weight: weight)
    }
}
