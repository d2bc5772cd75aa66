import Arcade
import Graphics
import TestSupport
import UI
import XCTest

/// A big redraw drawn in bands (`Screen.bands`) gives the very pixels it gives drawn
/// whole: the menu and every game, landscape and portrait, the frames a scene really
/// draws and full ones.
final class BandedRedrawTests: XCTestCase {
    func testBandsSplitBigRectanglesOnly() {
        let screen = Screen(width: 1920, height: 1080)
        screen.bandBytes = 1 << 20
        let full = screen.shadow.bounds
        let bands = screen.bands(full)
        XCTAssertEqual(bands.count, 8, "8.3 MB in bands of about 1 MB")
        XCTAssertEqual(bands.first?.y, 0)
        XCTAssertEqual(bands.last?.maxY, 1080)
        XCTAssertEqual(bands.reduce(0) { $0 + $1.area }, full.area, "every pixel once")
        for (a, b) in zip(bands, bands.dropFirst()) {
            XCTAssertEqual(a.maxY, b.y)
            XCTAssertEqual(a.x, 0)
            XCTAssertEqual(a.width, 1920)
        }
        XCTAssertEqual(screen.bands(PixelRect(10, 10, 500, 500)), [PixelRect(10, 10, 500, 500)], "1 MB: not past four bands")
        screen.bandBytes = 0
        XCTAssertEqual(screen.bands(full), [full], "0: never")
        screen.bandBytes = 1
        XCTAssertEqual(screen.bands(PixelRect(0, 0, 1920, 5)).count, 5, "never thinner than a row")
    }

    func testBandsAreAnEighthOfTheLastLevelCache() {
        XCTAssertEqual(Screen.bandBytes(lastLevelCache: 8 << 20), 1 << 20)
        XCTAssertEqual(Screen.bandBytes(lastLevelCache: 32 << 20), 4 << 20, "a 1920x1080 frame fits: drawn whole")
        XCTAssertEqual(Screen.bandBytes(lastLevelCache: 1 << 20), 256 << 10, "a Pi 4's L2: at least 256 KB")
        XCTAssertEqual(Screen.bandBytes(lastLevelCache: 0), 256 << 10, "no figure: as a Pi 4")
    }

    func testBandedFramesMatchWholeOnes() {
        let scenes: [(String, (Int, Int) -> SceneHarness<Scene>)] =
            [("menu", { w, h in SceneHarness<Scene>(width: w, height: h,
                                                    scene: MenuScene(games: GameCatalog.standard.games, language: .english)) })]
            + GameCatalog.standard.games.map { game in (game.id, { w, h in SceneHarness<Scene>(game: game, width: w, height: h) }) }
        for (width, height) in [(1280, 800), (800, 1280)] {
            for (name, make) in scenes {
                let whole = make(width, height), banded = make(width, height)
                whole.screen.bandBytes = 0
                // Bands of 13 rows: every rectangle taller than 52 rows is cut, unevenly.
                banded.screen.bandBytes = banded.screen.shadow.stride * 13
                XCTAssertGreaterThan(banded.screen.bands(banded.screen.shadow.bounds).count, 1)
                for h in [whole, banded] {
                    h.fps = 10
                    h.screen.invalidateAll()
                    h.run(seconds: 0.6)  // a full frame, then what the scene redraws by itself
                }
                XCTAssertEqual(ImageComparison(whole.screen.shadow, banded.screen.shadow, tolerance: 0).differingPixels, 0,
                               "\(name) \(width)x\(height)")
            }
        }
    }
}
