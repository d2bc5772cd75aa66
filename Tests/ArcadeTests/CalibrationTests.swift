import TestSupport
import XCTest
@testable import Arcade

final class CalibrationTests: XCTestCase {
    private func assertMatrix(_ a: [Double], _ b: [Double], accuracy: Double = 1e-9, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, 6, file: file, line: line)
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, file: file, line: line) }
    }

    func testPerfectTouchesGiveIdentity() throws {
        let targets = Calibration.targets()
        let fit = try XCTUnwrap(Calibration.solve(targets: targets, touched: targets))
        assertMatrix(fit.matrix, Calibration.identity)
        XCTAssertEqual(fit.maxError, 0, accuracy: 1e-12)
        XCTAssertTrue(fit.isPlausible)
    }

    func testRecoversAKnownAffineMap() throws {
        // A panel mounted mirrored in x, slightly scaled and offset, with a little shear.
        let truth = [-1.05, 0.02, 1.01, 0.01, 0.97, -0.02]
        let targets = Calibration.targets()
        let inverse = try XCTUnwrap(Calibration.inverse(truth))
        let touched = targets.map { Calibration.apply(inverse, to: $0) }
        let fit = try XCTUnwrap(Calibration.solve(targets: targets, touched: touched))
        assertMatrix(fit.matrix, truth)
        XCTAssertLessThan(fit.maxError, 1e-9)
        for (t, p) in zip(targets, touched) {
            let mapped = Calibration.apply(fit.matrix, to: p)
            XCTAssertEqual(mapped.x, t.x, accuracy: 1e-9)
            XCTAssertEqual(mapped.y, t.y, accuracy: 1e-9)
        }
    }

    func testLeastSquaresSpreadsAMissedTap() throws {
        let targets = Calibration.targets()
        var touched = targets
        touched[2].x += 0.02   // one tap 2% off
        let fit = try XCTUnwrap(Calibration.solve(targets: targets, touched: touched))
        // The error is shared between the four points, not dumped on one.
        XCTAssertGreaterThan(fit.maxError, 0.002)
        XCTAssertLessThan(fit.maxError, 0.02)
        XCTAssertTrue(fit.isPlausible)
        touched[2].x += 0.3    // a tap on the wrong target entirely
        let bad = try XCTUnwrap(Calibration.solve(targets: targets, touched: touched))
        XCTAssertFalse(bad.isPlausible)
    }

    func testSwappedAxesAreRecovered() throws {
        let targets = Calibration.targets()
        let touched = targets.map { Calibration.Point($0.y, $0.x) }
        let fit = try XCTUnwrap(Calibration.solve(targets: targets, touched: touched))
        assertMatrix(fit.matrix, [0, 1, 0, 1, 0, 0])
    }

    func testDegenerateInputIsRefused() {
        let targets = Calibration.targets()
        let line = [0.1, 0.3, 0.6, 0.9].map { Calibration.Point($0, $0) }
        XCTAssertNil(Calibration.solve(targets: targets, touched: line))
        XCTAssertNil(Calibration.solve(targets: targets, touched: Array(targets.prefix(2))))
        XCTAssertNil(Calibration.solve(targets: Array(targets.prefix(2)), touched: Array(targets.prefix(2))))
        XCTAssertNil(Calibration.solve(targets: targets, touched: targets.map { _ in Calibration.Point(.nan, 0) }))
        XCTAssertNil(Calibration.inverse([1, 2, 0, 2, 4, 0]))
    }

    func testComposeWithTheCurrentCalibration() throws {
        let current = [0.9, 0, 0.05, 0, 1.1, -0.05]
        let correction = [1.02, 0, -0.01, 0, 0.98, 0.01]
        let combined = Calibration.compose(correction, current)
        let p = Calibration.Point(0.3, 0.7)
        let viaBoth = Calibration.apply(correction, to: Calibration.apply(current, to: p))
        let direct = Calibration.apply(combined, to: p)
        XCTAssertEqual(viaBoth.x, direct.x, accuracy: 1e-12)
        XCTAssertEqual(viaBoth.y, direct.y, accuracy: 1e-12)
        assertMatrix(Calibration.compose(current, Calibration.inverse(current)!), Calibration.identity)
    }

    func testMatrixIsAValidConfigValue() throws {
        let fit = try XCTUnwrap(Calibration.solve(targets: Calibration.targets(),
                                                   touched: Calibration.targets().map { Calibration.Point($0.x * 0.9 + 0.05, $0.y) }))
        var settings = Settings()
        let text = fit.matrix.map { String($0) }.joined(separator: " ")
        XCTAssertNil(settings.apply(key: "touch.calibration", value: text))
        assertMatrix(settings.touch.calibration, fit.matrix)
    }
}
