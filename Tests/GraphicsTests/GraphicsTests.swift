import TestSupport
import XCTest
@testable import Graphics

final class GraphicsTests: XCTestCase {
    nonisolated(unsafe) static let fonts: FontLibrary = try! FontLibrary()

    func testShapes() {
        let s = Surface(width: 320, height: 200, format: .xrgb8888)
        let c = Canvas(surface: s, scale: 1)
        c.fill(Rect(0, 0, 320, 200), Color(hex: 0x1B1F2A))
        c.fill(Rect(10, 10, 60, 40), Color(hex: 0xE94F37))
        c.fillRoundedRect(Rect(80, 10, 90, 50), radius: 14, Color(hex: 0x3B82F6))
        c.strokeRoundedRect(Rect(180, 10, 90, 50), radius: 14, width: 3, Color(hex: 0xF5C542))
        c.fillCircle(center: Point(40, 110), radius: 30, Color(hex: 0x22C55E))
        c.strokeEllipse(Rect(80, 80, 100, 60), width: 4, Color(hex: 0xFFFFFF))
        c.line(from: Point(190, 80), to: Point(300, 140), width: 5, Color(hex: 0xA855F7))
        c.fillPolygon([Point(200, 190), Point(250, 150), Point(300, 190)], Color(hex: 0xF97316))
        c.fill(Rect(10.5, 160.25, 60, 30), Color(hex: 0xFFFFFF, alpha: 128))
        c.shadow(Rect(100, 155, 80, 30), radius: 10)
        c.fillRoundedRect(Rect(100, 155, 80, 30), radius: 10, Color(hex: 0xEEEEEE))
        assertMatchesReference(s, "shapes")
        // Anti-aliased: the circle's edge has partial coverage, its centre is solid.
        XCTAssertEqual(s.pixel(x: 40, y: 110), Color(hex: 0x22C55E))
        let edge = s.pixel(x: 40 + 29, y: 110)
        XCTAssertNotEqual(edge, Color(hex: 0x22C55E))
        XCTAssertNotEqual(edge, Color(hex: 0x1B1F2A), "edge pixel should be partly covered")
    }

    /// A colour overlaid by a translucent one is the colour pixman's OVER paints, to the
    /// last bit (a menu tile's light spot is painted as it).
    func testOverlaidIsWhatOverPaints() {
        let s = Surface(width: 1, height: 1, format: .xrgb8888)
        let c = Canvas(surface: s)
        for base in [Color(hex: 0x3FA34D), Color(hex: 0x3B82F6), Color(hex: 0xE8A33D), Color(hex: 0x000000), Color(hex: 0xFFFFFF)] {
            for overlay in [Color.white.withAlpha(0.16), Color(r: 0, g: 0, b: 0, a: 90), Color(r: 200, g: 40, b: 120, a: 1),
                            Color(r: 10, g: 250, b: 70, a: 254)] {
                c.fill(Rect(0, 0, 1, 1), base)
                c.fill(Rect(0, 0, 1, 1), overlay)
                XCTAssertEqual(s.pixel(x: 0, y: 0), base.overlaid(with: overlay), "\(overlay) over \(base)")
            }
        }
    }

    func testLatinText() {
        let s = Surface(width: 300, height: 80, format: .xrgb8888)
        let c = Canvas(surface: s, scale: 1)
        c.fill(Rect(0, 0, 300, 80), Color(hex: 0x1B1F2A))
        c.drawText("Beat Zombies 2048", in: Rect(0, 0, 300, 40), style: TextStyle(size: 24, weight: .bold), fonts: Self.fonts)
        c.drawText("Tap to play!", in: Rect(0, 40, 300, 40), style: TextStyle(size: 18, color: Color(hex: 0xF5C542)), fonts: Self.fonts)
        assertMatchesReference(s, "text-latin")
    }

    func testChineseText() {
        let s = Surface(width: 300, height: 60, format: .xrgb8888)
        let c = Canvas(surface: s, scale: 1)
        c.fill(Rect(0, 0, 300, 60), Color(hex: 0xFFFFFF))
        c.drawText("超级猜图 猫", in: Rect(0, 0, 300, 60), style: TextStyle(size: 32, color: .black), fonts: Self.fonts)
        assertMatchesReference(s, "text-chinese")
        XCTAssertGreaterThan(Self.fonts.measure("猫", style: TextStyle(size: 32), scale: 1), 25)
    }

    func testColourEmoji() {
        let s = Surface(width: 200, height: 100, format: .xrgb8888)
        let c = Canvas(surface: s, scale: 1)
        c.fill(Rect(0, 0, 200, 100), Color(hex: 0x2D6A4F))
        c.drawEmoji("🧟", in: Rect(0, 0, 100, 100), fonts: Self.fonts)
        c.drawText("🍎🧠", in: Rect(100, 0, 100, 100), style: TextStyle(size: 36), fonts: Self.fonts)
        assertMatchesReference(s, "emoji")
        // Colour, not a grey mask: somewhere the zombie's skin is clearly non-grey.
        var coloured = 0
        for y in stride(from: 0, to: 100, by: 2) { for x in stride(from: 0, to: 100, by: 2) {
            let p = s.pixel(x: x, y: y)
            if abs(Int(p.r) - Int(p.g)) > 40 || abs(Int(p.g) - Int(p.b)) > 40, p != Color(hex: 0x2D6A4F) { coloured += 1 }
        } }
        XCTAssertGreaterThan(coloured, 100)
    }

    func testSpriteScaledAndRotated() {
        let sprite = Surface(width: 40, height: 20, format: .argb8888)
        let sc = Canvas(surface: sprite)
        sc.fillRoundedRect(Rect(0, 0, 40, 20), radius: 6, Color(hex: 0xE94F37, alpha: 200))
        sc.fillCircle(center: Point(30, 10), radius: 6, Color(hex: 0xFFFFFF))
        let s = Surface(width: 200, height: 120, format: .xrgb8888)
        let c = Canvas(surface: s)
        c.fill(Rect(0, 0, 200, 120), Color(hex: 0x334155))
        c.drawImage(sprite, in: Rect(10, 10, 40, 20))
        c.drawImage(sprite, in: Rect(60, 20, 80, 40), rotation: .pi / 6)
        c.drawImage(sprite, in: Rect(140, 60, 50, 50), rotation: -.pi / 2, alpha: 0.5)
        assertMatchesReference(s, "sprite-scaled-rotated")
    }

    func testRGB565Output() {
        let s = Surface(width: 120, height: 60, format: .rgb565)
        let c = Canvas(surface: s)
        c.fillVerticalGradient(Rect(0, 0, 120, 60), top: Color(hex: 0x0EA5E9), bottom: Color(hex: 0x1E1B4B))
        c.fillRoundedRect(Rect(10, 10, 100, 40), radius: 12, Color(hex: 0xF5C542))
        c.drawText("565", in: Rect(10, 10, 100, 40), style: TextStyle(size: 22, weight: .bold, color: .black), fonts: Self.fonts)
        assertMatchesReference(s, "rgb565")
        XCTAssertEqual(s.stride % 16, 0)
    }

    func testPNGRoundTripKeepsAlpha() throws {
        let s = Surface(width: 8, height: 8, format: .argb8888)
        Canvas(surface: s).fill(Rect(0, 0, 4, 8), Color(hex: 0xFF0000, alpha: 128))
        let path = NSTemporaryDirectory() + "/bw-roundtrip.png"
        try s.writePNG(path)
        let back = try Surface.loadPNG(path)
        let p = back.pixel(x: 1, y: 1)
        XCTAssertEqual(Int(p.a), 128, accuracy: 1)
        XCTAssertEqual(Int(p.r), 255, accuracy: 2)
        XCTAssertEqual(back.pixel(x: 6, y: 6).a, 0)
    }

    func testMissingFontNamesFileAndPackage() {
        XCTAssertThrowsError(try FontLibrary(cjk: .init(path: "/nonexistent/wqy.ttc", package: "fonts-wqy-microhei"))) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("/nonexistent/wqy.ttc"), text)
            XCTAssertTrue(text.contains("fonts-wqy-microhei"), text)
        }
    }

    func testCorruptPNGIsAClearError() throws {
        let path = NSTemporaryDirectory() + "/bw-corrupt.png"
        try Data("not a png at all".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try Surface.loadPNG(path)) { XCTAssertTrue("\($0)".contains(path)) }
    }

    func testTextWrapsAtWordsAndCJK() {
        let style = TextStyle(size: 20)
        let lines = Self.fonts.wrap("the quick brown fox jumps over", style: style, scale: 1, maxWidth: 120)
        XCTAssertGreaterThan(lines.count, 1)
        for l in lines { XCTAssertLessThanOrEqual(Self.fonts.measure(l, style: style, scale: 1), 120.5, l) }
        let cjk = Self.fonts.wrap("猫狗鸟鱼虎狮熊猴", style: style, scale: 1, maxWidth: 70)
        XCTAssertGreaterThan(cjk.count, 1)
    }

    func testDamageRegionMergesAndCaps() {
        var d = DamageRegion()
        d.add(PixelRect(0, 0, 10, 10))
        d.add(PixelRect(5, 5, 10, 10))
        XCTAssertEqual(d.rects, [PixelRect(0, 0, 15, 15)])
        d.add(PixelRect(500, 500, 10, 10))
        XCTAssertEqual(d.rects.count, 2)
        for i in 0..<40 { d.add(PixelRect(i * 40, 300, 5, 5)) }
        XCTAssertLessThanOrEqual(d.rects.count, DamageRegion.maxRects)
    }
}

/// Pictures are size-checked on their header before the pixels are allocated.
final class PictureSizeLimitTests: XCTestCase {
    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        let body = Array(type.utf8) + data
        return be(UInt32(data.count)) + body + be(crc32(body))
    }

    func testHugePNGIsRefusedFromItsHeader() throws {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        // 16384 x 16384 RGBA: 1 GB of pixels claimed by a 60-byte file.
        let ihdr = be(16384) + be(16384) + [8, 6, 0, 0, 0]
        let png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", ihdr) + chunk("IDAT", [0x78, 0x9c, 0x03, 0x00]) + chunk("IEND", [])
        let path = NSTemporaryDirectory() + "boardwalk-huge-\(getpid()).png"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try Surface.loadPNG(path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("16384x16384 pixels is too large (1024 MB)"), text)
        }
        XCTAssertNil(Surface.pictureSizeProblem(width: 4096, height: 2048))
        XCTAssertNotNil(Surface.pictureSizeProblem(width: 4097, height: 10))
        XCTAssertNotNil(Surface.pictureSizeProblem(width: 4096, height: 4096))
        XCTAssertNotNil(Surface.pictureSizeProblem(width: 0, height: 10))
    }
}
