import TestSupport
import XCTest
@testable import Graphics

/// A drawing composited from its cached picture looks as it does drawn straight onto the
/// surface (within a step of rounding) at any scale, position within a pixel, opacity and
/// clip; it is made once and then reused; the pictures stay under their byte bound.
final class PicturesTests: XCTestCase {
    /// A card-like drawing: a shadow, a rounded panel, a diamond, a circle.
    func drawing(_ c: Canvas) {
        let card = Rect(6, 6, 50, 64)
        c.shadow(card, radius: 8, blur: 4, offsetY: 2, color: Color(r: 0, g: 0, b: 0, a: 80))
        c.fillRoundedRect(card, radius: 8, Color(hex: 0x2A3150))
        c.fillPolygon([Point(31, 12), Point(45, 38), Point(31, 64), Point(17, 38)], Color(hex: 0xF5B83D).withAlpha(0.3))
        c.fillEllipse(Rect(21, 28, 20, 20), Color(hex: 0xF5B83D))
    }

    func render(cached: Bool, scale: Double, at offset: Point, opacity: Double = 1, clip: PixelRect? = nil,
                name: String = "test.card") -> Surface {
        let surface = Surface(width: 240, height: 240, format: .xrgb8888)
        surface.clear(surface.bounds, to: Color(hex: 0x14182A))
        var canvas = Canvas(surface: surface, scale: scale)
        canvas.opacity = opacity
        if let clip { canvas.clip = clip }
        let c = canvas.translated(by: offset)
        if cached {
            c.drawCached(name, in: Rect(0, 0, 62, 76)) { drawing($0) }
        } else {
            drawing(c)
        }
        return surface
    }

    func testCachedLooksLikeDrawnStraight() {
        for scale in [1.0, 1.5, 2.25] {
            for offset in [Point(10, 10), Point(10.3, 17.55), Point(33.7, 4.25)] {
                let straight = render(cached: false, scale: scale, at: offset)
                let cached = render(cached: true, scale: scale, at: offset)
                let cmp = ImageComparison(cached, straight, tolerance: 0)
                XCTAssertLessThanOrEqual(cmp.maxChannelDifference, 3, "scale \(scale) at \(offset)")
                XCTAssertGreaterThan(ImageComparison(cached, render(cached: false, scale: scale, at: Point(80, 80)),
                                                     tolerance: 8).differingPixels, 1000, "the drawing was drawn at all")
                // Faded as one picture: the straight drawing at full strength, mixed 60:40
                // with the background (the shadow does not show through the faded card).
                let faded = render(cached: true, scale: scale, at: offset, opacity: 0.6)
                let background = render(cached: false, scale: scale, at: Point(500, 500))
                XCTAssertLessThanOrEqual(maxDifference(faded, mixing: straight, background, 0.6), 3,
                                         "scale \(scale) at \(offset), faded")
            }
        }
    }

    /// The largest channel difference between `a` and `top` mixed over `bottom` by `amount`.
    func maxDifference(_ a: Surface, mixing top: Surface, _ bottom: Surface, _ amount: Double) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width * 4 where x % 4 != 3 {
                func byte(_ s: Surface) -> Double { Double(s.pixels.load(fromByteOffset: y * s.stride + x, as: UInt8.self)) }
                let mixed = byte(top) * amount + byte(bottom) * (1 - amount)
                worst = max(worst, Int(abs(byte(a) - mixed).rounded()))
            }
        }
        return worst
    }

    func testClippedLikeDrawnStraight() {
        let clip = PixelRect(30, 20, 37, 41)
        let straight = render(cached: false, scale: 1.5, at: Point(12.4, 9.8), clip: clip)
        let cached = render(cached: true, scale: 1.5, at: Point(12.4, 9.8), clip: clip)
        XCTAssertLessThanOrEqual(ImageComparison(cached, straight, tolerance: 0).maxChannelDifference, 3)
    }

    func testMadeOnceForEachSizeAndPhase() {
        var made = 0
        let surface = Surface(width: 300, height: 100, format: .xrgb8888)
        let canvas = Canvas(surface: surface, scale: 2)
        let name = "test.count.\(UInt64.random(in: 0...UInt64.max))"
        for x in [0.0, 40, 80, 120] {  // whole pixels: one picture
            canvas.translated(by: Point(x, 5)).drawCached(name, in: Rect(0, 0, 30, 30)) { _ in made += 1 }
        }
        XCTAssertEqual(made, 1)
        canvas.translated(by: Point(0.25, 5)).drawCached(name, in: Rect(0, 0, 30, 30)) { _ in made += 1 }
        canvas.translated(by: Point(0, 5)).drawCached(name, in: Rect(0, 0, 31, 30)) { _ in made += 1 }
        XCTAssertEqual(made, 3, "another position within a pixel, another size: pictures of their own")
        canvas.snappedToPixels().translated(by: Point(0.5, 5)).drawCached(name, in: Rect(0, 0, 30, 30)) { _ in made += 1 }
        XCTAssertEqual(made, 3, "at a whole point on scale 2: the first picture again")
    }

    func testKeptUnderTheirBound() {
        let kept = KeptSurfaces(byteLimit: 1 << 20)
        func key(_ i: Int) -> KeptSurfaces.Key {
            .picture(Pictures.Key(name: i, width: 200, height: 200, phaseX: 0, phaseY: 0, scale: 1))
        }
        for i in 0..<40 {
            _ = kept.surface(key(i)) { Surface(width: 200, height: 200, format: .argb8888) }
            _ = kept.surface(key(0)) { XCTFail("the most used picture was let go"); return nil }
            XCTAssertLessThanOrEqual(kept.bytes, 1 << 20)
        }
        XCTAssertGreaterThan(kept.count, 3)
        XCTAssertEqual(kept.census(.picture).count, kept.count)
        XCTAssertEqual(kept.census(.picture).made, 40)
        // A screen's budget grows with its pixels and never shrinks.
        kept.fit(screenWidth: 1920, height: 1080)
        XCTAssertEqual(kept.byteLimit, KeptSurfaces.bytesPerScreenPixel * 1920 * 1080)
        kept.fit(screenWidth: 100, height: 100)
        XCTAssertEqual(kept.byteLimit, KeptSurfaces.bytesPerScreenPixel * 1920 * 1080)
    }

    /// The one eviction order: least recently used first, whatever was inserted when.
    func testRecentlyUsedLetsTheOldestGo() {
        var lru = RecentlyUsed<String, Int>()
        for (i, k) in ["a", "b", "c", "d"].enumerated() { lru.insert(k, i, cost: 10) }
        XCTAssertEqual(lru.use("a"), 0)  // a is now the newest
        XCTAssertEqual(lru.removeOldest()?.key, "b")
        lru.insert("c", 7, cost: 5)      // replaced, newest
        XCTAssertEqual(lru.cost, 25)
        XCTAssertEqual(lru.removeOldest()?.key, "d")
        XCTAssertEqual(lru.removeOldest()?.key, "a")
        XCTAssertEqual(lru.removeOldest()?.value, 7)
        XCTAssertNil(lru.removeOldest())
        XCTAssertEqual(lru.cost, 0)
        XCTAssertNil(lru.use("a"))
        lru.insert("e", 1, cost: 1)
        XCTAssertEqual(lru.count, 1)
    }

    func testSnappedMovesLessThanHalfAPixel() {
        let surface = Surface(width: 10, height: 10, format: .xrgb8888)
        var c = Canvas(surface: surface, scale: 2.25)
        c.origin = Point(10.49, 7.51)
        XCTAssertEqual(c.snappedToPixels().origin, Point(10, 8))
    }
}
