import XCTest
@testable import Audio

final class RenderTests: XCTestCase {
    func testRenderToWAV() throws {
        let dir = ProcessInfo.processInfo.environment["AUDIO_RENDER_DIR"] ?? NSTemporaryDirectory() + "boardwalk-sounds"
        let start = Date()
        let paths = try renderSoundsToWAV(directory: dir)
        print("rendered \(paths.count) in \(Date().timeIntervalSince(start)) s")
        XCTAssertEqual(paths.count, Sound.allCases.count + Music.allCases.count)
    }
}
