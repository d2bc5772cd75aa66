import XCTest
@testable import Display
import Graphics

final class HeadlessTests: XCTestCase {
    func testHeadlessShowsTheSceneUpright() throws {
        let p = try HeadlessPresenter(width: 320, height: 200)
        XCTAssertTrue(p.needsFullRedraw)
        XCTAssertTrue(p.isReadyForFrame)
        XCTAssertNil(p.pollDescriptor)
        try runTestScene(p)
        XCTAssertFalse(p.needsFullRedraw)
        XCTAssertEqual(p.framesPresented, TestScene.frames + 1)
        // Damage-only frames end at the same picture as drawing the last frame whole.
        let expected = Surface(width: 320, height: 200, format: .xrgb8888)
        TestScene.draw(expected, frame: TestScene.frames)
        let shot = p.screenshot()
        XCTAssertEqual(shot.width, 320)
        XCTAssertEqual(shot.height, 200)
        for y in 0..<200 { for x in 0..<320 where shot.pixel(x: x, y: y) != expected.pixel(x: x, y: y) {
            XCTFail("differs at \(x),\(y)"); return
        } }
    }

    func testHeadlessRotated90() throws {
        // A 1280x800 panel turned 90: the UI sees 800x1280.
        let p = try HeadlessPresenter(width: 80, height: 128, rotation: .deg90)
        try runTestScene(p)
        let logical = Surface(width: 80, height: 128, format: .xrgb8888)
        TestScene.draw(logical, frame: TestScene.frames)
        let shot = p.screenshot()
        XCTAssertEqual(shot.width, 128)
        XCTAssertEqual(shot.height, 80)
        // Bottom-left marker (red) of the picture lands top-left on a clockwise-turned panel.
        XCTAssertEqual(shot.pixel(x: 2, y: 2), Color(hex: 0xFF0000))
        for y in 0..<128 { for x in 0..<80 where shot.pixel(x: 127 - y, y: x) != logical.pixel(x: x, y: y) {
            XCTFail("differs at \(x),\(y)"); return
        } }
    }

    func testHeadlessRGB565AndBadSizes() throws {
        let p = try HeadlessPresenter(width: 64, height: 48, rotation: .deg180, format: .rgb565)
        try runTestScene(p)
        XCTAssertEqual(p.screenshot().format, .rgb565)
        XCTAssertThrowsError(try HeadlessPresenter(width: 0, height: 10))
        XCTAssertThrowsError(try HeadlessPresenter(width: 10, height: 10, format: .a8))
        XCTAssertThrowsError(try p.present(Surface(width: 48, height: 64, format: .xrgb8888),
                                           damage: DamageRegion(PixelRect(0, 0, 1, 1))))
    }

    func testPPMHeaderMatchesQEMUScreendump() throws {
        let s = Surface(width: 3, height: 2, format: .xrgb8888)
        s.clear(PixelRect(0, 0, 1, 1), to: Color(hex: 0x102030))
        let path = NSTemporaryDirectory() + "display-test-\(getpid()).ppm"
        try writePPM(s, to: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path)
        XCTAssertEqual(Array(data.prefix(11)), Array("P6\n3 2\n255\n".utf8))
        XCTAssertEqual(Array(data[11..<14]), [0x10, 0x20, 0x30])
        XCTAssertEqual(data.count, 11 + 18)
    }
}
