import TestSupport
import XCTest
@testable import Arcade

final class BacklightTests: XCTestCase {
    func testPrefersFirmwareAndScalesPercent() throws {
        let root = try makeTemporaryDirectory(self)
        try writeFile(root + "/10-0045/max_brightness", "255\n")
        try writeFile(root + "/10-0045/brightness", "128\n")
        try writeFile(root + "/10-0045/type", "raw\n")
        try writeFile(root + "/acpi_video0/max_brightness", "15\n")
        try writeFile(root + "/acpi_video0/brightness", "15\n")
        try writeFile(root + "/acpi_video0/type", "firmware\n")
        let backlight = Backlight(root: root)
        XCTAssertEqual(backlight.device, root + "/acpi_video0")
        XCTAssertEqual(backlight.percent(), 100)
        XCTAssertTrue(backlight.setPercent(40))
        XCTAssertEqual(readFile(root + "/acpi_video0/brightness"), "6\n")
        XCTAssertEqual(backlight.percent(), 40)
        XCTAssertTrue(backlight.setPercent(0))
        XCTAssertEqual(readFile(root + "/acpi_video0/brightness"), "1\n", "never fully dark")
    }

    func testRawDeviceAlone() throws {
        let root = try makeTemporaryDirectory(self)
        try writeFile(root + "/rpi_backlight/max_brightness", "255\n")
        try writeFile(root + "/rpi_backlight/brightness", "255\n")
        let backlight = Backlight(root: root)
        XCTAssertTrue(backlight.setPercent(50))
        XCTAssertEqual(readFile(root + "/rpi_backlight/brightness"), "128\n")
    }

    func testAbsentIsAQuietNoOpAfterOneNotice() {
        var backlight: Backlight!
        let logged = capturingLog { backlight = Backlight(root: "/nonexistent/backlight") }
        XCTAssertEqual(logged.count, 1)
        XCTAssertTrue(logged[0].hasPrefix("<5>backlight: none"))
        XCTAssertFalse(backlight.isPresent)
        let later = capturingLog {
            XCTAssertFalse(backlight.setPercent(50))
            XCTAssertNil(backlight.percent())
        }
        XCTAssertEqual(later, [])
    }
}
