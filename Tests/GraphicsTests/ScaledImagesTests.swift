import TestSupport
import XCTest
@testable import Graphics

/// An image drawn scaled a second time at the same size and position within a pixel comes
/// from its scaled copy, and gives the same bytes as filtering it again: at any scale,
/// position, fade and clip. One drawing makes no copy; a gliding sprite makes none.
final class ScaledImagesTests: XCTestCase {
    /// A sprite with soft, translucent edges and detail (premultiplied).
    func sprite(_ w: Int = 37, _ h: Int = 29) -> Surface {
        let s = Surface(width: w, height: h, format: .argb8888)
        for y in 0..<h {
            let row = (s.pixels + y * s.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w {
                let a = UInt32((x * 7 + y * 13) % 256)
                let r = a * UInt32(x * 255 / w) / 255, g = a * UInt32(y * 255 / h) / 255, b = a / 2
                row[x] = a << 24 | r << 16 | g << 8 | b
            }
        }
        return s
    }

    /// A copy with its own identity: never drawn before, so drawn by filtering.
    func fresh(_ image: Surface) -> Surface {
        let s = Surface(width: image.width, height: image.height, format: .argb8888)
        memcpy(s.pixels, image.pixels, image.byteCount)
        return s
    }

    func target() -> Surface {
        let s = Surface(width: 200, height: 160, format: .xrgb8888)
        s.clear(s.bounds, to: Color(hex: 0x204060))
        return s
    }

    func draw(_ image: Surface, into s: Surface, scale: Double, rect: Rect, alpha: Double, clip: PixelRect?) {
        var c = Canvas(surface: s, scale: scale)
        if let clip { c.clip = clip }
        c.drawImage(image, in: rect, alpha: alpha)
    }

    func testDrawnAgainIsTheSameBytes() {
        let image = sprite()
        let clips: [PixelRect?] = [nil, PixelRect(31, 22, 40, 33)]
        for scale in [1.0, 1.6, 2.25] {
            for rect in [Rect(10, 10, 52, 41), Rect(10.3, 17.55, 30, 60), Rect(33.7, 4.25, 18.2, 14.6)] {
                let before = ScaledImages.shared.made
                for alpha in [1.0, 0.55] {
                    for clip in clips {
                        let expected = target()
                        draw(fresh(image), into: expected, scale: scale, rect: rect, alpha: alpha, clip: clip)
                        for n in 0..<3 {  // filtered, then from the copy (fades and clips share it)
                            let s = target()
                            draw(image, into: s, scale: scale, rect: rect, alpha: alpha, clip: clip)
                            let cmp = ImageComparison(s, expected, tolerance: 0)
                            XCTAssertEqual(cmp.differingPixels, 0,
                                           "drawing \(n) at scale \(scale) in \(rect), alpha \(alpha), clip \(String(describing: clip)): largest difference \(cmp.maxChannelDifference)")
                        }
                        if clip == nil {
                            XCTAssertGreaterThan(ImageComparison(expected, target(), tolerance: 8).differingPixels, 50,
                                                 "the sprite was drawn at all")
                        }
                    }
                }
                XCTAssertEqual(ScaledImages.shared.made, before + 1, "one copy for this size and position")
            }
        }
    }

    func testOnceOrGlidingMakesNoCopy() {
        let image = sprite()
        let before = ScaledImages.shared.made
        let s = target()
        for i in 0..<50 {  // a new position within a pixel every frame
            draw(image, into: s, scale: 1.6, rect: Rect(10 + Double(i) * 0.37, 20, 52, 41), alpha: 1, clip: nil)
        }
        XCTAssertEqual(ScaledImages.shared.made, before)
        // Whole-pixel steps at scale 1 keep one position within a pixel: one copy for all.
        for i in 0..<5 { draw(image, into: s, scale: 1, rect: Rect(10 + Double(i) * 3, 20, 52, 41), alpha: 1, clip: nil) }
        XCTAssertEqual(ScaledImages.shared.made, before + 1)
    }

    /// A sprite drawn in a screen's last frame and again in the next screen's first (a game
    /// left and opened again) is drawn twice on two screens: no copy, until it stays put.
    func testAnAskingOnTheLastScreenDoesNotCount() {
        let image = sprite()
        let s = target()
        let before = ScaledImages.shared.made
        draw(image, into: s, scale: 1.6, rect: Rect(10, 20, 52, 41), alpha: 1, clip: nil)
        KeptSurfaces(byteLimit: 1 << 20).screenChanged()
        draw(image, into: s, scale: 1.6, rect: Rect(10, 20, 52, 41), alpha: 1, clip: nil)
        XCTAssertEqual(ScaledImages.shared.made, before)
        draw(image, into: s, scale: 1.6, rect: Rect(10, 20, 52, 41), alpha: 1, clip: nil)
        XCTAssertEqual(ScaledImages.shared.made, before + 1, "asked twice on one screen")
    }

    /// A new image drawn once makes no copy, even where the allocator hands it a freed
    /// image's address and it is drawn at that image's size and position.
    func testANewImageIsNotTakenForAFreedOne() {
        let s = target()
        let before = ScaledImages.shared.made
        for _ in 0..<20 {
            let image = sprite()
            draw(image, into: s, scale: 1.6, rect: Rect(10, 20, 52, 41), alpha: 1, clip: nil)
        }
        XCTAssertEqual(ScaledImages.shared.made, before)
    }

    func testUnscaledAndTurnedAreNotCopied() {
        let image = sprite()
        let before = ScaledImages.shared.made
        let s = target()
        for _ in 0..<3 {
            draw(image, into: s, scale: 1, rect: Rect(5, 5, 37, 29), alpha: 1, clip: nil)  // 1:1
            Canvas(surface: s, scale: 1.6).drawImage(image, in: Rect(40, 40, 50, 40), rotation: 0.3)
        }
        XCTAssertEqual(ScaledImages.shared.made, before)
    }
}
