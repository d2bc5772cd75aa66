import Graphics
import TestSupport
import UI
import XCTest

/// The reference-image check sees text: one changed digit in the smallest words the games
/// show fails it, though it is far under the share of pixels rounding may change.
final class ReferenceImageTests: XCTestCase {
    private func screen(_ words: String, style: TextStyle, width: Int, height: Int) -> Surface {
        let scene = Scene()
        scene.backgroundColor = Theme.background
        let label = Label(words, style: style)
        label.frame = Rect(20, 6, 260, 28)
        scene.addSubview(label)
        let harness = SceneHarness(width: width, height: height, scene: scene)
        harness.run(seconds: 0.05)
        return harness.screen.shadow.copied(as: .argb8888)
    }

    func testOneChangedDigitFailsTheCheck() {
        for (style, size) in [(Theme.body, (800, 480)), (Theme.caption, (1280, 800)), (Theme.heading, (480, 800))] {
            let before = screen("In the house 0/60", style: style, width: size.0, height: size.1)
            let after = screen("In the house 0/20", style: style, width: size.0, height: size.1)
            let comparison = ImageComparison(after, before, tolerance: 8)
            XCTAssertLessThan(comparison.differingPixels, Int(Double(size.0 * size.1) * 0.002),
                              "one digit is under the pixel share the check allows, so the share alone can't see it")
            print("digit change: \(style.size) pt at \(size): \(comparison.differingPixels) pixels, densest patch \(comparison.densestPatch)")
            XCTAssertNotNil(ReferenceImages.mismatch(after, before), "\(style.size) pt at \(size)")
            XCTAssertNil(ReferenceImages.mismatch(before, before), "the same picture matches")
        }
    }

    /// Rounding scattered over the screen (a channel off by more than the tolerance here
    /// and there) is not a changed glyph.
    func testScatteredRoundingStillMatches() {
        let before = screen("In the house 0/60", style: Theme.body, width: 800, height: 480)
        let after = before.copied(as: .argb8888)
        for i in 0..<300 {
            let x = (i * 37) % 800, y = (i * 53) % 480
            // Opaque argb8888: flip a bit of red, 32 levels, beyond the tolerance of 8.
            let pixel = (after.pixels + y * after.stride + x * 4).assumingMemoryBound(to: UInt32.self)
            pixel.pointee ^= 0x20_0000
        }
        XCTAssertNil(ReferenceImages.mismatch(after, before))
    }
}
