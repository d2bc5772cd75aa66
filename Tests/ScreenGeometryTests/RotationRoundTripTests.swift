import XCTest
import Display
import Graphics
import Input
import ScreenGeometry

/// The bridge between Display and Input: what copy-out puts on a panel pixel, touch
/// mapping must send back to the same logical pixel, for every rotation.
final class RotationRoundTripTests: XCTestCase {
    /// Every panel pixel of an odd-sized screen: the logical pixel copy-out showed there
    /// (read back from its colour) must be where a touch on that panel pixel lands, its
    /// four corners on that pixel's four corners and its centre on its centre.
    func testCopyOutAndTouchMappingMeetAtEveryPixelCorner() throws {
        let logical = PixelSize(7, 5)
        let shadow = Surface(width: logical.width, height: logical.height, format: .xrgb8888)
        for y in 0..<logical.height {
            for x in 0..<logical.width {  // colour = the pixel's own coordinates
                shadow.pixels.storeBytes(of: UInt32(x << 8 | y), toByteOffset: y * shadow.stride + x * 4, as: UInt32.self)
            }
        }
        for rotation in Rotation.allCases {
            let panel = rotation.swapped(logical)
            let scanout = Surface(width: panel.width, height: panel.height, format: .xrgb8888)
            try CopyOut(destination: scanout, rotation: rotation).copy(from: shadow, region: DamageRegion(shadow.bounds))
            let touch = TouchTransform(displayWidth: panel.width, displayHeight: panel.height, rotation: rotation)
            XCTAssertEqual(PixelSize(touch.screenWidth, touch.screenHeight), logical)

            var seen = Set<Int>()
            for py in 0..<panel.height {
                for px in 0..<panel.width {
                    let v = scanout.pixels.load(fromByteOffset: py * scanout.stride + px * 4, as: UInt32.self) & 0xFFFF
                    let lx = Int(v >> 8), ly = Int(v & 0xFF)
                    seen.insert(ly * logical.width + lx)
                    // Touch mapping clamps to the edge pixels' centres; clamp what we expect the same way.
                    func expected(_ x: Double, _ y: Double) -> Point {
                        Point(min(max(x, 0.5), Double(logical.width) - 0.5), min(max(y, 0.5), Double(logical.height) - 0.5))
                    }
                    func touched(_ x: Double, _ y: Double) -> Point {
                        let p = touch.screenPoint(normalizedX: x / Double(panel.width), normalizedY: y / Double(panel.height))
                        return Point(p.x, p.y)
                    }
                    let centre = touched(Double(px) + 0.5, Double(py) + 0.5)
                    XCTAssertEqual(centre, expected(Double(lx) + 0.5, Double(ly) + 0.5),
                                   "rotation \(rotation): panel pixel \(px),\(py) shows \(lx),\(ly)")
                    var corners: Set<Point> = []
                    for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        corners.insert(touched(Double(px + cx), Double(py + cy)))
                    }
                    var logicalCorners: Set<Point> = []
                    for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        logicalCorners.insert(expected(Double(lx + cx), Double(ly + cy)))
                    }
                    XCTAssertEqual(corners, logicalCorners, "rotation \(rotation): corners of panel pixel \(px),\(py)")
                }
            }
            XCTAssertEqual(seen.count, logical.width * logical.height, "rotation \(rotation): every logical pixel shown once")
        }
    }

    /// The one definition, checked against turns written out by hand.
    func testClockwiseTurnsByHand() {
        let s = PixelSize(7, 5)
        for y in 0..<s.height {
            for x in 0..<s.width {
                XCTAssertTrue(Rotation.deg0.panelPixel(x: x, y: y, logicalSize: s) == (x, y))
                XCTAssertTrue(Rotation.deg90.panelPixel(x: x, y: y, logicalSize: s) == (s.height - 1 - y, x))
                XCTAssertTrue(Rotation.deg180.panelPixel(x: x, y: y, logicalSize: s) == (s.width - 1 - x, s.height - 1 - y))
                XCTAssertTrue(Rotation.deg270.panelPixel(x: x, y: y, logicalSize: s) == (y, s.width - 1 - x))
                for r in Rotation.allCases {
                    let p = r.panelPixel(x: x, y: y, logicalSize: s)
                    XCTAssertTrue(r.logicalPixel(x: p.x, y: p.y, panelSize: r.swapped(s)) == (x, y), "\(r) \(x),\(y)")
                    XCTAssertTrue(r.scan(panelSize: r.swapped(s)).logicalPixel(px: p.x, py: p.y) == (x, y), "\(r) scan \(x),\(y)")
                }
            }
        }
        XCTAssertEqual(Rotation(degrees: -90), .deg270)
        XCTAssertEqual(Rotation(degrees: 450), .deg90)
        XCTAssertNil(Rotation(degrees: 45))
        XCTAssertEqual(Rotation.allCases.map(\.inverse), [.deg0, .deg270, .deg180, .deg90])
        XCTAssertEqual(Rotation.deg90.panelRect(PixelRect(1, 2, 3, 1), logicalSize: s), PixelRect(2, 1, 1, 3))
    }
}
