import Foundation
import XCTest
import Platform

/// `boardwalk-bench --json` as a script reads it: every line one strict JSON object.
final class BenchOutputTests: XCTestCase {
    /// The bench built beside this test binary (SwiftPM builds it first: a dependency).
    func benchBinary() throws -> String {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = (exe as NSString).deletingLastPathComponent + "/boardwalk-bench"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("no boardwalk-bench beside \(exe): build it (swift build --build-tests builds it as this test's dependency)")
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    func testEveryJSONLineParsesStrictly() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try benchBinary())
        // Fixed work, one small size: every section's rows (scene rows carry the kiosk's
        // mode, text with quotes in it) without the minutes a full run takes.
        process.arguments = ["--json", "--frames", "1", "--size", "800x480", "--busy", "0",
                             "--scene", "menu,attract,game-beat_zombies"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 20)
        var sections = Set<String>()
        var narrowedOnly = 0, coldDestination = 0
        for line in lines {
            do {
                let value = try JSONValue.parse(String(line))
                let section = try XCTUnwrap(value["section"]?.string, "no section in \(line)")
                let name = try XCTUnwrap(value["name"]?.string, "no name in \(line)")
                sections.insert(section)
                // Upright copies into rgb565 carry the same bytes moved without the conversion.
                if section == "copyout" && name.hasSuffix("-rgb565") {
                    XCTAssertGreaterThan(value["narrow_only_over_memcpy_dst"]?.number ?? 0, 0, "\(line)")
                    narrowedOnly += 1
                    // The damaged frame also as a board meets it: the panel's lines cold.
                    if name.contains("damaged") {
                        XCTAssertGreaterThan(value["cold_dst_over_memcpy_dst"]?.number ?? 0, 0, "\(line)")
                        coldDestination += 1
                    }
                }
            } catch let error as JSONError {
                XCTFail("not JSON: \(error): \(line)")
            }
        }
        XCTAssertTrue(["startup", "graphics", "scenes", "copyout", "audio"].allSatisfy(sections.contains), "\(sections)")
        XCTAssertEqual(narrowedOnly, 3, "1280x800 and 1920x1080 whole frames and the damaged frame")
        XCTAssertEqual(coldDestination, 1, "the damaged frame")
        XCTAssertTrue(lines.contains { $0.contains("\"mode\":\"attract(\\\"") }, "a scene row's mode, escaped")
    }
}
