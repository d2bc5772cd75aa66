import Foundation
import TestSupport
import XCTest
import Audio
import Graphics
import Input
import UI
@testable import Game2048

private typealias Harness = SceneHarness<Game2048Scene>

extension SceneHarness where S == Game2048Scene {
    /// A finger drawn across the board.
    func swipe(_ direction: SwipeDirection) { swipe(direction, from: scene.board.rectInRoot.center) }
}
final class Game2048SceneTests: XCTestCase {
    func testStartScreenThenPlayBySwipeAndKey() throws {
        let h = Harness(game: .game2048, seed: 2048, now: 10)
        h.check("2048-start-800x480")
        XCTAssertFalse(h.scene.started)
        h.swipe(.left)
        XCTAssertEqual(h.scene.model.moveCount, 0, "no moves before ready")
        h.tap(try XCTUnwrap(h.button(titled: "Let's go!")))
        XCTAssertTrue(h.scene.started)
        XCTAssertEqual(h.sound.requests.first, .music(.game2048))

        // A few moves by swipe and by key; each either moves or is refused by the rules.
        var expected = h.scene.model
        for direction in [SwipeDirection.left, .up, .right, .down] {
            expected.move(Direction(direction))
            h.swipe(direction)
            h.run(seconds: 0.3)
        }
        for key in [Key.left, .up, .left, .down] {
            let direction: Direction = key == .left ? .left : key == .up ? .up : .down
            expected.move(direction)
            h.key(key)
            h.run(seconds: 0.3)
        }
        XCTAssertEqual(h.scene.model, expected)
        XCTAssertGreaterThan(h.scene.model.moveCount, 3)
        assertTilesMatchModel(h.scene)
        h.check("2048-game-800x480")
    }

    func testASwipeDuringTheSlideIsNotLost() {
        let h = Harness(game: .game2048, seed: 2048, now: 10)
        h.scene.start()
        h.scene.load(try! Game2048Model(rows: [[2, 0, 0, 2, 0], [0, 0, 0, 0, 0], [0, 0, 4, 0, 0],
                                                [0, 0, 0, 0, 0], [0, 0, 0, 0, 8]], seed: 3))
        h.run(seconds: 0.1)
        h.swipe(.left)
        h.run(seconds: 0.03)  // mid-slide
        h.swipe(.right)
        h.swipe(.up)
        XCTAssertEqual(h.scene.model.moveCount, 3)
        h.run(seconds: 0.4)
        assertTilesMatchModel(h.scene)
    }

    /// Frames in the middle of a move: tiles part-way along, then the merged tile popping.
    func testSlideAndPopFrames() throws {
        let h = Harness(game: .game2048, seed: 2048, now: 10)
        h.scene.start()
        h.scene.load(try Game2048Model(rows: [[0, 2, 0, 2, 0], [0, 0, 0, 0, 64], [4, 0, 4, 0, 8],
                                              [0, 0, 0, 0, 0], [16, 0, 0, 0, 2]], seed: 12))
        h.run(seconds: 0.1)
        h.fps = 60
        h.swipe(.right)
        h.run(seconds: 0.05)
        h.check("2048-mid-slide-800x480")
        h.run(seconds: 0.1)
        h.check("2048-pop-800x480")
        h.run(seconds: 0.3)
        assertTilesMatchModel(h.scene)
    }

    func testSettingsAndColourThemePersist() throws {
        let storage = MemoryStorage()
        let h = Harness(game: .game2048, storage: storage, seed: 2048, now: 10)
        h.scene.start()
        h.run(seconds: 0.1)
        h.tap(try XCTUnwrap(h.button(titled: "Settings")))
        h.tap(try XCTUnwrap(h.button(titled: "4×4")))
        XCTAssertEqual(storage.integer("2048.size"), 4)
        XCTAssertEqual(h.scene.model.size, 4)
        h.run(seconds: 0.3)
        h.check("2048-settings-800x480")

        h.tap(try XCTUnwrap(h.button(titled: "Colour")))
        h.run(seconds: 0.3)
        h.check("2048-theme-800x480")
        // Picking a colour applies it, saves it and goes back to the board.
        h.tap(try XCTUnwrap(h.button(titled: "Ocean")))
        XCTAssertEqual(storage.string("2048.theme"), "ocean")
        XCTAssertEqual(h.scene.backgroundColor, Color(hex: 0x0E2A47))
        XCTAssertNil(h.button(titled: "Ocean"), "back on the board: the colour page is hidden")
        h.run(seconds: 0.3)
        h.check("2048-game-4x4-ocean-800x480")

        // A new scene (the next visit) finds both choices.
        let again = Harness(game: .game2048, storage: storage, seed: 2048, now: 10)
        XCTAssertEqual(again.scene.model.size, 4)
        XCTAssertEqual(again.scene.backgroundColor, Color(hex: 0x0E2A47))
    }

    /// The colour tab's crayon box: at least 24 colours, distinct, deep and bright ones, each
    /// keeping the words drawn on it in its ink readable (WCAG contrast of at least 4.5:1 for
    /// the labels, the swatch names on the swatch's lightened face, and the dim captions at
    /// least 3:1).
    func testTheColourBoxHoldsTwentyFourReadableColours() {
        func contrast(_ a: Color, _ b: Color) -> Double { a.contrastRatio(with: b) }
        let all = BackgroundTheme.all
        XCTAssertGreaterThanOrEqual(all.count, 24)
        XCTAssertEqual(Set(all.map(\.key)).count, all.count, "keys are unique")
        XCTAssertEqual(Set(all.map(\.color)).count, all.count, "colours are distinct")
        for theme in all {
            XCTAssertGreaterThanOrEqual(contrast(theme.color, theme.ink), 4.5, theme.key)
            XCTAssertGreaterThanOrEqual(contrast(theme.color.lighter(0.06), theme.ink), 4.5, "\(theme.key) swatch")
            XCTAssertGreaterThanOrEqual(contrast(theme.color, theme.dimInk), 3, "\(theme.key) captions")
            XCTAssertFalse(theme.english.isEmpty || theme.chinese.isEmpty, theme.key)
        }
        XCTAssertGreaterThanOrEqual(all.filter { $0.ink != Theme.text }.count, 8, "bright colours, with dark words")
    }

    /// Bright tiles, every one a different colour, and every number readable on its tile:
    /// at least 3:1 (the numbers are large, bold text) with the colour the palette picks.
    func testTilesAreBrightDistinctAndTheirNumbersReadable() {
        let values = (1...13).map { 1 << $0 }
        let fills = values.map(TilePalette.fill)
        XCTAssertEqual(Set(fills).count, values.count, "a colour per value")
        for (value, fill) in zip(values, fills) {
            XCTAssertGreaterThanOrEqual(fill.contrastRatio(with: TilePalette.text(value)), 3, "\(value)")
        }
        for value in values.prefix(11) {
            let c = TilePalette.fill(value)
            let saturation = Double(max(c.r, c.g, c.b) - min(c.r, c.g, c.b)) / 255
            XCTAssertGreaterThanOrEqual(saturation, 0.4, "\(value): a bright colour, not a grey-blue")
        }
        XCTAssertEqual(TilePalette.text(2), .white)
        XCTAssertEqual(TilePalette.text(8), TilePalette.darkText, "dark on yellow")
    }

    func testPracticeButtonsAndBestScore() throws {
        let storage = MemoryStorage()
        let h = Harness(game: .game2048, storage: storage, seed: 2048, now: 10)
        h.scene.start()
        h.scene.load(try Game2048Model(rows: [[2, 2, 0, 0, 0], [4, 4, 0, 0, 0], [0, 0, 0, 0, 0],
                                              [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]], seed: 1))
        h.key(.left)
        h.run(seconds: 0.3)
        XCTAssertEqual(storage.integer("2048.best.5x5"), 12)
        h.tap(try XCTUnwrap(h.button(titled: "Settings")))
        h.tap(try XCTUnwrap(h.button(titled: "Clear board")))
        XCTAssertEqual(h.scene.model.tiles.count, 0)
        h.tap(try XCTUnwrap(h.button(titled: "Add a tile")))
        h.tap(try XCTUnwrap(h.button(titled: "Add a tile")))
        XCTAssertEqual(h.scene.model.tiles.count, 2)
        XCTAssertTrue(h.scene.isPractice)
        h.tap(try XCTUnwrap(h.button(titled: "Game")))
        h.run(seconds: 0.3)
        assertTilesMatchModel(h.scene)
    }

    func testWinPanelAndKeepGoing() throws {
        let h = Harness(game: .game2048, seed: 2048, now: 10)
        h.scene.start()
        h.scene.load(try Game2048Model(rows: [[1024, 1024, 0, 0, 0], [512, 256, 128, 64, 32], [2, 4, 8, 16, 0],
                                              [0, 0, 0, 0, 0], [0, 0, 0, 0, 2]], seed: 5, score: 20000))
        h.key(.left)
        h.run(seconds: 1.1)
        XCTAssertEqual(h.scene.model.phase, .won)
        XCTAssertTrue(h.sound.requests.contains(.effect(.win)))
        h.check("2048-win-800x480")
        h.tap(try XCTUnwrap(h.button(titled: "Keep going")))
        XCTAssertEqual(h.scene.model.phase, .playing)
        h.key(.right)
        XCTAssertEqual(h.scene.model.moveCount, 2)
    }

    func testGameOverPanel() throws {
        let h = Harness(game: .game2048, seed: 2048, now: 10)
        h.scene.start()
        h.scene.load(try Game2048Model(rows: [[2, 4, 2], [8, 2, 4], [16, 32, 0]], seed: 6))
        h.key(.right)
        h.run(seconds: 1.1)
        XCTAssertEqual(h.scene.model.phase, .over)
        h.check("2048-over-800x480")
        h.tap(try XCTUnwrap(h.button(titled: "Undo")))
        XCTAssertEqual(h.scene.model.phase, .playing)
        XCTAssertNil(h.scene.endPanel)
    }

    /// The game-over panel in both languages, landscape and portrait.
    func testGameOverPanelOnEveryScreen() throws {
        try checkEndPanels("2048-over", make: { Harness(game: .game2048, width: $0, height: $1, language: $2, seed: 2048, now: 10) }) { h in
            h.scene.start()
            h.scene.load(try Game2048Model(rows: [[2, 4, 2], [8, 2, 4], [16, 32, 0]], seed: 6, score: 1236))
            h.key(.right)
            XCTAssertEqual(h.scene.model.phase, .over)
        }
    }

    func testPortraitAndChinese() throws {
        let h = Harness(game: .game2048, width: 480, height: 800, language: .chinese, seed: 2048, now: 10)
        h.check("2048-start-zh-480x800")
        h.tap(try XCTUnwrap(h.button(titled: "开始！")))
        h.key(.up)
        h.run(seconds: 0.4)
        h.check("2048-game-zh-480x800")
    }

    /// A stick alone reaches everything: confirm lifts the focus to the buttons, up to the
    /// tabs; choosing the game tab hands the arrows back to the tiles.
    func testStickReachesTheTabsAndBack() throws {
        let storage = MemoryStorage()
        let h = Harness(game: .game2048, storage: storage, seed: 2048, now: 10)
        h.key(.confirm)  // "Let's go!" has the focus on the start screen
        XCTAssertTrue(h.scene.started)
        h.key(.left)
        XCTAssertEqual(h.scene.model.moveCount, 1)
        h.key(.confirm)
        XCTAssertEqual((h.scene.focusedView as? Button)?.title, "Undo")
        h.key(.up)
        XCTAssertEqual((h.scene.focusedView as? Button)?.title, "Colour")
        h.key(.left)
        XCTAssertEqual((h.scene.focusedView as? Button)?.title, "Settings")
        h.key(.confirm)
        XCTAssertEqual(h.scene.selectedTab, 1)
        h.key(.down)
        XCTAssertEqual((h.scene.focusedView as? Button)?.title, "6×6")
        h.key(.confirm)
        XCTAssertEqual(storage.integer("2048.size"), 6)
        h.key(.up)
        h.key(.left)
        XCTAssertEqual((h.scene.focusedView as? Button)?.title, "Game")
        h.key(.confirm)
        XCTAssertEqual(h.scene.selectedTab, 0)
        XCTAssertNil(h.scene.focusedView)
        let moves = h.scene.model.moveCount
        h.key(.down)
        h.key(.up)
        XCTAssertGreaterThan(h.scene.model.moveCount, moves)
        // Back with the focus up returns to the tiles; back again goes home.
        var home = false
        h.scene.onHome = { home = true }
        h.key(.confirm)
        h.key(.back)
        XCTAssertNil(h.scene.focusedView)
        XCTAssertFalse(home)
        h.key(.back)
        XCTAssertTrue(home)
    }

    func testAttractModePlaysItself() {
        let h = Harness(game: .game2048, seed: 77, now: 10)
        h.fps = 10
        h.scene.isAutoplaying = true
        XCTAssertTrue(h.scene.started)
        XCTAssertTrue(h.scene.isLive)
        h.run(seconds: 5)
        XCTAssertGreaterThan(h.scene.model.moveCount, 10)
        h.scene.isAutoplaying = false
        h.run(seconds: 0.3)
        assertTilesMatchModel(h.scene)
        XCTAssertNil(h.storage.integer("2048.best.5x5"), "the attract mode sets no record")
    }

    private func assertTilesMatchModel(_ scene: Game2048Scene, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(scene.tileViews.keys), Set(scene.model.tiles.map(\.tile.id)), file: file, line: line)
        for placed in scene.model.tiles {
            let view = scene.tileViews[placed.tile.id]
            XCTAssertEqual(view?.frame, scene.board.cellRect(placed.position), file: file, line: line)
            XCTAssertEqual(view?.value, placed.tile.value, file: file, line: line)
            XCTAssertEqual(view?.scale ?? 0, 1, accuracy: 1e-9, file: file, line: line)
        }
        XCTAssertEqual(scene.board.subviews.count, scene.model.tiles.count, file: file, line: line)
    }
}
