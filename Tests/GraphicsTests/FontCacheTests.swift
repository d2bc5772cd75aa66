import XCTest
@testable import Graphics

/// The font caches stay within their bounds however many pictures and sizes are drawn
/// (the soak found them growing RSS for hours), and keep what is drawn often.
final class FontCacheTests: XCTestCase {
    func testPictureSizesAreFewAndNeverSmaller() {
        for px in 1...200 {
            let size = FontLibrary.pictureSize(px)
            XCTAssertGreaterThanOrEqual(size, px)
            XCTAssertLessThan(Double(size), Double(px) * 1.125, "\(px) -> \(size)")
            XCTAssertEqual(FontLibrary.pictureSize(size), size)
        }
        XCTAssertEqual(FontLibrary.pictureSize(25), 25, "icons stay exact")
        XCTAssertEqual(Set((8...160).map(FontLibrary.pictureSize)).count, 43)
    }

    func testNearbySizesShareOnePicture() throws {
        let fonts = try FontLibrary()
        let zombie: Unicode.Scalar = "🧟"
        let before = SurfaceCacheCensus.current().emoji.made
        let a = try XCTUnwrap(fonts.emojiImage(zombie, pixelSize: FontLibrary.pictureSize(66)))
        let b = try XCTUnwrap(fonts.emojiImage(zombie, pixelSize: FontLibrary.pictureSize(70)))
        XCTAssertTrue(a === b)
        XCTAssertEqual(a.height, 72)
        XCTAssertEqual(SurfaceCacheCensus.current().emoji.made, before + 1)
        XCTAssertTrue(fonts.hasEmoji(zombie))
        XCTAssertFalse(fonts.hasEmoji("A"))
    }

    func testPictureCacheStaysUnderItsBoundAndKeepsRecentPictures() throws {
        let fonts = try FontLibrary()
        let favourite: Unicode.Scalar = "🍎"
        let kept = try XCTUnwrap(fonts.emojiImage(favourite, pixelSize: 160))
        var drawn = 0
        for value in 0x1F400...0x1F4FF {
            guard let scalar = Unicode.Scalar(value), fonts.hasEmoji(scalar) else { continue }
            _ = fonts.emojiImage(scalar, pixelSize: 150)
            _ = fonts.emojiImage(favourite, pixelSize: 160)  // drawn every time: never the oldest
            drawn += 1
            XCTAssertLessThanOrEqual(KeptSurfaces.shared.bytes, KeptSurfaces.shared.byteLimit)
        }
        XCTAssertGreaterThan(drawn * 160 * 150 * 4, KeptSurfaces.shared.byteLimit, "more pictures than the budget holds")
        XCTAssertTrue(fonts.emojiImage(favourite, pixelSize: 160) === kept)
    }

    func testGlyphCacheStaysUnderItsBounds() throws {
        let fonts = try FontLibrary()
        let text = "Score 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz"
        for size in stride(from: 6, through: 200, by: 1) {
            _ = fonts.width(of: text, pixelSize: size, weight: size % 2 == 0 ? .regular : .bold)
            XCTAssertLessThanOrEqual(KeptSurfaces.shared.bytes, KeptSurfaces.shared.byteLimit)
        }
        // Evicted glyphs come back the same when drawn again.
        XCTAssertEqual(fonts.width(of: "Score", pixelSize: 20, weight: .regular),
                       try FontLibrary().width(of: "Score", pixelSize: 20, weight: .regular))
    }
}
