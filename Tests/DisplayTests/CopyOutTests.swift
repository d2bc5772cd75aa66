import XCTest
@testable import Display
import Graphics
import ScreenGeometry

final class CopyOutTests: XCTestCase {
    /// A shadow where every pixel has its own colour.
    func makeShadow(_ w: Int, _ h: Int) -> Surface {
        let s = Surface(width: w, height: h, format: .xrgb8888)
        for y in 0..<h {
            for x in 0..<w {
                let v = UInt32(x * 37 + 11) & 0xFF | (UInt32(y * 53 + 7) & 0xFF) << 8 | UInt32((x * 7 + y * 13) & 0xFF) << 16
                (s.pixels + y * s.stride).storeBytes(of: v, toByteOffset: x * 4, as: UInt32.self)
            }
        }
        return s
    }

    func raw32(_ s: Surface, _ x: Int, _ y: Int) -> UInt32 {
        (s.pixels + y * s.stride).load(fromByteOffset: x * 4, as: UInt32.self) & 0xFFFFFF
    }
    func raw16(_ s: Surface, _ x: Int, _ y: Int) -> UInt16 {
        (s.pixels + y * s.stride).load(fromByteOffset: x * 2, as: UInt16.self)
    }

    /// Clockwise turns written out by hand, independent of Rotation's own mapping.
    func expectedPanelPoint(_ r: Rotation, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (Int, Int) {
        switch r {
        case .deg0: return (x, y)
        case .deg90: return (h - 1 - y, x)        // the top row becomes the right column
        case .deg180: return (w - 1 - x, h - 1 - y)
        case .deg270: return (y, w - 1 - x)       // the top row becomes the left column
        }
    }

    func testFullCopyEveryRotationXRGB() throws {
        let (w, h) = (37, 23)
        let shadow = makeShadow(w, h)
        for r in Rotation.allCases {
            let panel = r.swapped(w, h)
            let out = Surface(width: panel.width, height: panel.height, format: .xrgb8888)
            try CopyOut(destination: out, rotation: r).copy(from: shadow, region: DamageRegion(shadow.bounds))
            for y in 0..<h {
                for x in 0..<w {
                    let (px, py) = expectedPanelPoint(r, x, y, w, h)
                    XCTAssertEqual(raw32(out, px, py), raw32(shadow, x, y), "rotation \(r) at \(x),\(y)")
                    if raw32(out, px, py) != raw32(shadow, x, y) { return }
                }
            }
        }
    }

    func testRGB565EveryRotation() throws {
        let (w, h) = (19, 11)
        let shadow = makeShadow(w, h)
        for r in Rotation.allCases {
            let panel = r.swapped(w, h)
            let out = Surface(width: panel.width, height: panel.height, format: .rgb565)
            try CopyOut(destination: out, rotation: r).copy(from: shadow, region: DamageRegion(shadow.bounds))
            for y in 0..<h {
                for x in 0..<w {
                    let v = raw32(shadow, x, y)
                    let red = (v >> 16) & 0xFF, green = (v >> 8) & 0xFF, blue = v & 0xFF
                    let expected = UInt16((red >> 3) << 11 | (green >> 2) << 5 | (blue >> 3))
                    let (px, py) = expectedPanelPoint(r, x, y, w, h)
                    XCTAssertEqual(raw16(out, px, py), expected, "rotation \(r) at \(x),\(y)")
                    if raw16(out, px, py) != expected { return }
                }
            }
        }
    }

    /// Only the damaged rectangles are written; everything else keeps what it had.
    func testPartialCopyTouchesOnlyDamage() throws {
        let (w, h) = (40, 30)
        let shadow = makeShadow(w, h)
        var damage = DamageRegion(PixelRect(3, 4, 5, 6))
        damage.add(PixelRect(30, 20, 9, 9))
        for r in Rotation.allCases {
            let panel = r.swapped(w, h)
            let out = Surface(width: panel.width, height: panel.height, format: .xrgb8888)
            out.clear(to: Color(hex: 0x123456))
            try CopyOut(destination: out, rotation: r).copy(from: shadow, region: damage)
            for y in 0..<h {
                for x in 0..<w {
                    let inside = damage.rects.contains { $0.intersects(PixelRect(x, y, 1, 1)) }
                    let (px, py) = expectedPanelPoint(r, x, y, w, h)
                    let expected = inside ? raw32(shadow, x, y) : 0x123456
                    XCTAssertEqual(raw32(out, px, py), expected, "rotation \(r) at \(x),\(y)")
                    if raw32(out, px, py) != expected { return }
                }
            }
        }
    }

    func testPanelRectMatchesPanelPoints() {
        let (w, h) = (40, 30)
        let rect = PixelRect(3, 4, 5, 6)
        for r in Rotation.allCases {
            let panelRect = r.panelRect(rect, logicalSize: PixelSize(w, h))
            var covered = PixelRect(0, 0, 0, 0)
            for y in rect.y..<rect.maxY {
                for x in rect.x..<rect.maxX {
                    let (px, py) = expectedPanelPoint(r, x, y, w, h)
                    covered = covered.union(PixelRect(px, py, 1, 1))
                }
            }
            XCTAssertEqual(panelRect, covered, "rotation \(r)")
        }
    }

    func testWrongShadowSizeIsAnError() {
        let out = Surface(width: 10, height: 20, format: .xrgb8888)
        let copy = CopyOut(destination: out, rotation: .deg90)
        XCTAssertThrowsError(try copy.copy(from: Surface(width: 10, height: 20, format: .xrgb8888),
                                           region: DamageRegion(PixelRect(0, 0, 10, 20)))) { error in
            XCTAssertEqual("\(error)", "display: shadow surface is 10x20, the screen is 20x10")
        }
    }

    func testRotationFromDegrees() {
        XCTAssertEqual(Rotation(degrees: 90), .deg90)
        XCTAssertEqual(Rotation(degrees: -90), .deg270)
        XCTAssertEqual(Rotation(degrees: 450), .deg90)
        XCTAssertNil(Rotation(degrees: 45))
    }
}
