import XCTest
import ScreenGeometry
@testable import Input

final class TouchMappingTests: XCTestCase {
    func testAxisMaxEqualToWidthStaysOnScreen() {
        // Panels that report 0..800 on an 800-pixel-wide screen (801 positions).
        let mapping = TouchMapping(x: AxisRange(minimum: 0, maximum: 800), y: AxisRange(minimum: 0, maximum: 480),
                                   transform: TouchTransform(displayWidth: 800, displayHeight: 480))
        let far = mapping.map(rawX: 800, rawY: 480)
        XCTAssertLessThan(far.x, 800)
        XCTAssertLessThan(far.y, 480)
        XCTAssertEqual(far.x, 799.5, accuracy: 0.01)
        let near = mapping.map(rawX: 0, rawY: 0)
        XCTAssertGreaterThanOrEqual(near.x, 0)
        XCTAssertEqual(near.x, 0.5, accuracy: 0.01)
        XCTAssertEqual(mapping.map(rawX: 400, rawY: 240).x, 400, accuracy: 0.01)
        // Out of range values (fuzz, bad calibration) are clamped to the screen.
        let wild = mapping.map(rawX: Int32.max, rawY: Int32.min)
        XCTAssertEqual(wild.x, 799.5)
        XCTAssertEqual(wild.y, 0.5)
    }

    func testAxisWithOffsetMinimum() {
        let mapping = TouchMapping(x: AxisRange(minimum: 200, maximum: 3900), y: AxisRange(minimum: 300, maximum: 3800),
                                   transform: TouchTransform(displayWidth: 800, displayHeight: 480))
        XCTAssertEqual(mapping.map(rawX: 200, rawY: 300).x, 0.5, accuracy: 0.2)
        XCTAssertEqual(mapping.map(rawX: 2050, rawY: 2050).x, 400, accuracy: 0.2)
        XCTAssertEqual(mapping.map(rawX: 2050, rawY: 2050).y, 240, accuracy: 0.2)
    }

    /// Raw axes equal to the 1280x800 panel's pixels, so positions read as panel pixels.
    func mapping(_ rotation: Rotation, calibration: CalibrationMatrix = .identity,
                 swap: Bool = false, invertX: Bool = false, invertY: Bool = false) -> TouchMapping {
        TouchMapping(x: AxisRange(minimum: 0, maximum: 1279), y: AxisRange(minimum: 0, maximum: 799),
                     transform: TouchTransform(displayWidth: 1280, displayHeight: 800, rotation: rotation,
                                               calibration: calibration, swapAxes: swap,
                                               invertX: invertX, invertY: invertY))
    }

    func testRotations() {
        // Panel pixel (100, 50) near the panel's top-left corner.
        let none = mapping(.deg0)
        XCTAssertEqual(none.transform.screenWidth, 1280)
        XCTAssertEqual(none.map(rawX: 100, rawY: 50).x, 100.5)
        XCTAssertEqual(none.map(rawX: 100, rawY: 50).y, 50.5)

        // 90: the picture is turned clockwise, so the panel's top-left corner shows the
        // logical screen's bottom-left: an 800x1280 portrait screen.
        let quarter = mapping(.deg90)
        XCTAssertEqual(quarter.transform.screenWidth, 800)
        XCTAssertEqual(quarter.transform.screenHeight, 1280)
        var p = quarter.map(rawX: 100, rawY: 50)
        XCTAssertEqual(p.x, 50.5, accuracy: 1e-9)
        XCTAssertEqual(p.y, 1280 - 100.5, accuracy: 1e-9)

        let half = mapping(.deg180)
        p = half.map(rawX: 100, rawY: 50)
        XCTAssertEqual(p.x, 1280 - 100.5, accuracy: 1e-9)
        XCTAssertEqual(p.y, 800 - 50.5, accuracy: 1e-9)

        let threeQuarters = mapping(.deg270)
        XCTAssertEqual(threeQuarters.transform.screenWidth, 800)
        p = threeQuarters.map(rawX: 100, rawY: 50)
        XCTAssertEqual(p.x, 800 - 50.5, accuracy: 1e-9)
        XCTAssertEqual(p.y, 100.5, accuracy: 1e-9)

        // Every corner pixel of the panel maps to a corner pixel of the rotated screen.
        for rotation in Rotation.allCases {
            let m = mapping(rotation)
            for (x, y) in [(Int32(0), Int32(0)), (1279, 0), (0, 799), (1279, 799)] {
                let q = m.map(rawX: x, rawY: y)
                let w = Double(m.transform.screenWidth), h = Double(m.transform.screenHeight)
                XCTAssertTrue([0.5, w - 0.5].contains { abs($0 - q.x) < 1e-9 }, "\(rotation) \(x),\(y) -> \(q)")
                XCTAssertTrue([0.5, h - 0.5].contains { abs($0 - q.y) < 1e-9 }, "\(rotation) \(x),\(y) -> \(q)")
            }
        }
    }

    func testCalibrationMatrix() {
        // A panel whose glass reads 5% too wide each way, corrected as udev would write it.
        let matrix = CalibrationMatrix(parsing: "1.1 0 -0.05 0 1.1 -0.05")!
        let m = mapping(.deg0, calibration: matrix)
        let p = m.map(rawX: 639, rawY: 399)          // the centre stays (nearly) put
        XCTAssertEqual(p.x, 640, accuracy: 1)
        XCTAssertEqual(p.y, 400, accuracy: 1)
        let q = m.map(rawX: 1215, rawY: 759)          // normalized ~0.95 -> ~0.995
        XCTAssertEqual(q.x, ((1215.5 / 1280) * 1.1 - 0.05) * 1280, accuracy: 1e-9)
        XCTAssertEqual(q.y, ((759.5 / 800) * 1.1 - 0.05) * 800, accuracy: 1e-9)

        // libinput's documented 90-degree matrix "0 -1 1 1 0 0": x' = 1 - y, y' = x.
        let turned = mapping(.deg0, calibration: CalibrationMatrix(0, -1, 1, 1, 0, 0))
        let r = turned.map(rawX: 100, rawY: 50)
        XCTAssertEqual(r.x, (1 - 50.5 / 800) * 1280, accuracy: 1e-9)
        XCTAssertEqual(r.y, 100.5 / 1280 * 800, accuracy: 1e-9)

        XCTAssertEqual(CalibrationMatrix(parsing: "1,0,0,0,1,0"), .identity)
        XCTAssertNil(CalibrationMatrix(parsing: "1,0,0,0,1"))
        XCTAssertNil(CalibrationMatrix(parsing: "1,0,0,0,1,x"))
        XCTAssertNil(CalibrationMatrix(parsing: "1,0,0,0,1,nan"))
    }

    func testSwapAndInvert() {
        var p = mapping(.deg0, invertX: true).map(rawX: 100, rawY: 50)
        XCTAssertEqual(p.x, 1280 - 100.5, accuracy: 1e-9)
        XCTAssertEqual(p.y, 50.5, accuracy: 1e-9)
        p = mapping(.deg0, invertY: true).map(rawX: 100, rawY: 50)
        XCTAssertEqual(p.y, 800 - 50.5, accuracy: 1e-9)
        // Swapped wiring: the X wire carries the panel's Y.
        p = mapping(.deg0, swap: true).map(rawX: 640, rawY: 200)
        XCTAssertEqual(p.x, 200.5 / 800 * 1280, accuracy: 1e-9)
        XCTAssertEqual(p.y, 640.5 / 1280 * 800, accuracy: 1e-9)
    }
}
