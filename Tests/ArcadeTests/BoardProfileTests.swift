import Foundation
import TestSupport
import XCTest
@testable import Arcade

/// Every profile in boards/ must load cleanly with the kiosk's own parser: an image
/// ships one of them as /etc/boardwalk/board.conf, and a typo there would only show up
/// as a warning in a board's journal.
final class BoardProfileTests: XCTestCase {
    private var boardsDir: String {
        // Tests/ArcadeTests/ThisFile.swift -> the repository root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("boards").path
    }

    func testEveryBoardProfileLoadsWithoutDiagnostics() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: boardsDir)
            .filter { $0.hasSuffix(".conf") }.sorted()
        XCTAssertTrue(names.contains("qemu-x86_64.conf"), "boards/ lacks the virtual board's profile")
        for name in names {
            var options = CommandLineOptions()
            options.configPath = "/nonexistent/boardwalk.conf"
            options.overrides = [ConfigEntry(key: "kiosk.board", value: boardsDir + "/" + name, origin: "test", line: nil)]
            let config = Config.load(options)
            XCTAssertEqual(config.diagnostics.filter { $0.level == .warning }, [], name)
            XCTAssertEqual(config.files.first, boardsDir + "/" + name, name)
        }
    }

    func testVirtualBoardProfileValues() throws {
        var options = CommandLineOptions()
        options.configPath = "/nonexistent/boardwalk.conf"
        options.overrides = [ConfigEntry(key: "kiosk.board", value: boardsDir + "/qemu-x86_64.conf", origin: "test", line: nil)]
        let s = Config.load(options).settings
        XCTAssertEqual(s.display.connector, "Virtual-1")
        XCTAssertEqual(s.display.mode, "1280x800")
        XCTAssertEqual(s.audio.mixerControls, ["Master", "PCM"])
        XCTAssertEqual(s.touch.calibration, [1, 0, 0, 0, 1, 0])
    }
}
