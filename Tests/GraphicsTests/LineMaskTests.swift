import TestSupport
import XCTest
@testable import Graphics

/// A line drawn as one mask looks as it did drawn glyph by glyph: the same pixels where
/// glyphs do not overlap, within the rounding of one blend where they do, from any
/// fractional start, in Latin and CJK, regular and bold, clipped or not.
final class LineMaskTests: XCTestCase {
    nonisolated(unsafe) static let fonts: FontLibrary = try! FontLibrary()

    func render(_ text: String, px: Int, weight: FontWeight, start: Double, glyphByGlyph: Bool,
                clip: PixelRect? = nil) -> Surface {
        let surface = Surface(width: 400, height: 60, format: .xrgb8888)
        surface.clear(surface.bounds, to: Color(hex: 0x1E293B))
        var canvas = Canvas(surface: surface)
        if let clip { canvas.clip = clip }
        let style = TextStyle(size: Double(px), weight: weight, color: Color(hex: 0xFACC15), alignment: .left)
        if glyphByGlyph {
            canvas.drawGlyphs(text, pen: start, baseline: 40, pixelSize: px, style: style,
                              fill: SolidFill(style.color), fonts: Self.fonts)
        } else {
            canvas.drawText(text, x: start, baseline: 40, style: style, fonts: Self.fonts)
        }
        return surface
    }

    func testOneMaskMatchesGlyphByGlyph() throws {
        for text in ["Score 1234  Zombies 12/60", "超级猜图 第 3 关", "WAVE AVAToday Ty.", "2048"] {
            for px in [13, 20, 37] {
                for weight in [FontWeight.regular, .bold] {
                    XCTAssertNotNil(Self.fonts.lineMask(text, pixelSize: px, weight: weight), text)
                    for start in [3.0, 10.3, 10.5, 10.7] {
                        let one = render(text, px: px, weight: weight, start: start, glyphByGlyph: false)
                        let each = render(text, px: px, weight: weight, start: start, glyphByGlyph: true)
                        let cmp = ImageComparison(one, each, tolerance: 0)
                        XCTAssertLessThanOrEqual(cmp.maxChannelDifference, 2, "\(text) \(px) \(weight) \(start)")
                        XCTAssertLessThan(cmp.differingPixels, 40, "\(text) \(px) \(weight) \(start)")
                    }
                }
            }
        }
        // Glyphs apart from each other: byte for byte.
        let one = render("1 2 3 4", px: 20, weight: .regular, start: 5.5, glyphByGlyph: false)
        let each = render("1 2 3 4", px: 20, weight: .regular, start: 5.5, glyphByGlyph: true)
        XCTAssertEqual(ImageComparison(one, each, tolerance: 0).differingPixels, 0)
    }

    func testClippedAndOffTheLeftEdge() {
        let clip = PixelRect(30, 20, 60, 30)
        let one = render("Clipped line", px: 24, weight: .regular, start: 12.4, glyphByGlyph: false, clip: clip)
        let each = render("Clipped line", px: 24, weight: .regular, start: 12.4, glyphByGlyph: true, clip: clip)
        XCTAssertLessThanOrEqual(ImageComparison(one, each, tolerance: 0).maxChannelDifference, 2)
        // Starting left of the surface: drawn glyph by glyph (rounding flips at zero).
        let left = render("Edge", px: 24, weight: .regular, start: -7.5, glyphByGlyph: false)
        let leftEach = render("Edge", px: 24, weight: .regular, start: -7.5, glyphByGlyph: true)
        XCTAssertEqual(ImageComparison(left, leftEach, tolerance: 0).differingPixels, 0)
    }

    func testLinesThatCannotBeOneMask() {
        XCTAssertNil(Self.fonts.lineMask("Zombie 🧟", pixelSize: 20, weight: .regular), "colour glyph")
        XCTAssertNil(Self.fonts.lineMask("   ", pixelSize: 20, weight: .regular), "nothing to draw")
        // A colour glyph's line still draws, glyph by glyph.
        let one = render("Go 🧟", px: 20, weight: .regular, start: 4, glyphByGlyph: false)
        let each = render("Go 🧟", px: 20, weight: .regular, start: 4, glyphByGlyph: true)
        XCTAssertEqual(ImageComparison(one, each, tolerance: 0).differingPixels, 0)
    }

    func testMasksStayUnderTheirBound() throws {
        let fonts = try FontLibrary()
        for i in 0..<3000 {
            _ = fonts.lineMask("Score \(i * 7919) of a long line of text to fill it", pixelSize: 40, weight: .bold)
            XCTAssertLessThanOrEqual(KeptSurfaces.shared.bytes, KeptSurfaces.shared.byteLimit)
        }
        // Kept: the same line twice is the same mask.
        let a = fonts.lineMask("Again", pixelSize: 30, weight: .regular)
        XCTAssertTrue(a === fonts.lineMask("Again", pixelSize: 30, weight: .regular))
    }
}
