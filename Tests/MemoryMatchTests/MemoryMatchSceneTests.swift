import TestSupport
import XCTest
import Audio
import Graphics
import Input
import UI
@testable import MemoryMatch

private typealias Harness = SceneHarness<MemoryMatchScene>

extension SceneHarness where S == MemoryMatchScene {
    func tapCard(_ index: Int) { tap(scene.cardViews[index]) }

    /// The two cards showing `face`.
    func pair(_ face: Int) -> (Int, Int) {
        let indices = scene.model.cards.indices.filter { scene.model.cards[$0].face == face }
        return (indices[0], indices[1])
    }
}

final class MemoryMatchSceneTests: XCTestCase {
    /// A whole 4x4 game by touch: a mismatch, a third tap, every pair, the dialog, again.
    func testWholeGameByTouch() throws {
        let storage = MemoryStorage()
        let h = Harness(game: .memoryMatch, storage: storage, seed: 16, now: 10)
        h.check("memory-start-800x480")
        h.tap(try XCTUnwrap(h.button(titled: "PLAY")))
        XCTAssertTrue(h.scene.showingGrid)
        XCTAssertEqual(h.scene.model.phase, .playing)
        h.run(seconds: 0.6)
        h.check("memory-dealt-800x480")

        // A mismatch: both show, then turn back.
        let (a0, b0) = h.pair(0)
        let (a1, _) = h.pair(1)
        h.tapCard(a0)
        h.tapCard(a1)
        XCTAssertNotNil(h.scene.model.mismatch)
        h.run(seconds: 0.3)
        h.check("memory-mismatch-800x480")
        h.run(seconds: 1)
        XCTAssertNotNil(h.scene.model.mismatch, "still showing after 1.3 s: 1.5 s to remember both")
        h.run(seconds: 0.5)
        XCTAssertNil(h.scene.model.mismatch)
        XCTAssertEqual(h.scene.cardViews[a0].turn, 0)

        // A third tap during a mismatch opens the new card at once.
        let (a2, b2) = h.pair(2)
        h.tapCard(a1)
        h.tapCard(a2)
        h.tapCard(b0)
        XCTAssertNil(h.scene.model.mismatch)
        XCTAssertEqual(h.scene.model.openCard, b0)
        h.tapCard(a0)
        XCTAssertEqual(h.scene.model.cards[a0].state, .matched)
        h.tapCard(a0)  // an open card: nothing
        XCTAssertNil(h.scene.model.openCard)
        h.tapCard(a2)
        h.tapCard(b2)
        h.run(seconds: 0.5)
        XCTAssertEqual(h.scene.model.matchedPairs, 2)
        h.check("memory-two-pairs-800x480")

        for face in 1..<8 where h.scene.model.cards[h.pair(face).0].state != .matched {
            let (a, b) = h.pair(face)
            h.tapCard(a)
            h.tapCard(b)
            h.run(seconds: 0.1)
        }
        XCTAssertEqual(h.scene.model.phase, .won)
        XCTAssertTrue(h.sound.requests.contains(.effect(.win)))
        h.run(seconds: 1.7)
        h.check("memory-play-again-800x480")
        XCTAssertEqual(storage.integer("memory.best.4x4"), h.scene.model.moves)

        h.tap(try XCTUnwrap(h.button(titled: "Yes")))
        XCTAssertEqual(h.scene.model.phase, .playing)
        XCTAssertEqual(h.scene.model.moves, 0)
        XCTAssertTrue(h.scene.model.cards.allSatisfy { $0.state == .faceDown })
    }

    func testNoGoesBackToTheStartScreen() throws {
        let h = Harness(game: .memoryMatch, seed: 16, now: 10)
        h.tap(try XCTUnwrap(h.button(titled: "PLAY")))
        for face in 0..<8 {
            let (a, b) = h.pair(face)
            h.tapCard(a)
            h.tapCard(b)
        }
        h.run(seconds: 1.7)
        h.tap(try XCTUnwrap(h.button(titled: "No")))
        XCTAssertFalse(h.scene.showingGrid)
        XCTAssertEqual(h.scene.model.phase, .ready)
        XCTAssertNotNil(h.button(titled: "PLAY"))
    }

    /// The "play again?" panel in both languages, landscape and portrait.
    func testPlayAgainPanelOnEveryScreen() {
        checkEndPanels("memory-play-again", make: { Harness(game: .memoryMatch, width: $0, height: $1, language: $2, seed: 16, now: 10) }) { h in
            h.scene.play()
            for face in 0..<8 {
                let (a, b) = h.pair(face)
                h.tapCard(a)
                h.tapCard(b)
            }
            XCTAssertEqual(h.scene.model.phase, .won)
            h.run(seconds: MemoryMatchScene.endDelay)
        }
    }

    func testGridAndThemeChoicesPersist() throws {
        let storage = MemoryStorage()
        let h = Harness(game: .memoryMatch, storage: storage, seed: 16, now: 10)
        h.tap(try XCTUnwrap(h.button(titled: "6×6")))
        h.tap(try XCTUnwrap(h.button(titled: "Fruit")))
        XCTAssertEqual(storage.string("memory.grid"), "6x6")
        XCTAssertEqual(storage.string("memory.theme"), "fruit")
        h.run(seconds: 0.3)
        h.check("memory-start-6x6-fruit-800x480")
        h.tap(try XCTUnwrap(h.button(titled: "PLAY")))
        XCTAssertEqual(h.scene.cardViews.count, 36)
        // Open a few cards to show the faces.
        for face in 0..<3 {
            let (a, b) = h.pair(face)
            h.tapCard(a)
            h.tapCard(b)
        }
        h.run(seconds: 0.6)
        h.check("memory-6x6-fruit-800x480")

        let again = Harness(game: .memoryMatch, storage: storage, seed: 16, now: 10)
        XCTAssertEqual(again.scene.model.grid, .sixBySix)
    }

    func testPortrait4x5Vehicles() throws {
        let storage = MemoryStorage()
        storage.setString("memory.grid", "4x5")
        storage.setString("memory.theme", "vehicles")
        let h = Harness(game: .memoryMatch, width: 480, height: 800, storage: storage, language: .chinese, seed: 16, now: 10)
        h.check("memory-start-zh-480x800")
        h.tap(try XCTUnwrap(h.button(titled: "开始")))
        for face in 0..<4 {
            let (a, b) = h.pair(face)
            h.tapCard(a)
            h.tapCard(b)
        }
        h.run(seconds: 0.6)
        h.check("memory-4x5-zh-480x800")
    }

    func testFlipTurnsEdgeOnAndBack() throws {
        let h = Harness(game: .memoryMatch, seed: 16, now: 10)
        h.tap(try XCTUnwrap(h.button(titled: "PLAY")))
        h.run(seconds: 0.6)
        let card = h.scene.cardViews[5]
        h.fps = 60
        h.screen.handle(.touch(TouchEvent(phase: .down, id: 2, x: card.rectInRoot.midX, y: card.rectInRoot.midY, time: h.now)))
        var turns: [Double] = []
        for _ in 0..<20 {
            h.run(seconds: 1.0 / 60)
            turns.append(card.turn)
        }
        XCTAssertEqual(turns.last, 1)
        // Back to the frame where the card stands nearly edge-on.
        h.screen.handle(.touch(TouchEvent(phase: .up, id: 2, x: card.rectInRoot.midX, y: card.rectInRoot.midY, time: h.now)))
        let other = h.scene.cardViews[6]
        h.screen.handle(.touch(TouchEvent(phase: .down, id: 3, x: other.rectInRoot.midX, y: other.rectInRoot.midY, time: h.now)))
        h.run(seconds: 0.1)
        h.check("memory-mid-flip-800x480")
        XCTAssertTrue(turns.contains { $0 > 0.3 && $0 < 0.7 }, "passes edge-on: \(turns)")
        XCTAssertEqual(turns, turns.sorted())
    }

    /// Arrow keys (or a stick) move a focus ring over the cards; confirm turns the card.
    func testKeysPlay() throws {
        let h = Harness(game: .memoryMatch, seed: 16, now: 10)
        func key(_ k: Key) { h.screen.handle(.key(KeyEvent(key: k, isPressed: true, time: h.now))) }
        key(.confirm)  // PLAY has the focus on the start screen
        XCTAssertTrue(h.scene.showingGrid)
        h.run(seconds: 0.6)
        key(.down)
        XCTAssertTrue(h.scene.focusedView === h.scene.cardViews[0], "the first card takes the focus")
        key(.confirm)
        XCTAssertEqual(h.scene.model.cards[0].state, .faceUp)
        key(.right)
        key(.down)
        XCTAssertTrue(h.scene.focusedView === h.scene.cardViews[5])
        key(.confirm)
        XCTAssertEqual(h.scene.model.moves, 1)
        h.run(seconds: 0.3)
        h.check("memory-keys-800x480")
    }

    func testPauseStopsTheClock() throws {
        let h = Harness(game: .memoryMatch, seed: 16, now: 10)
        h.tap(try XCTUnwrap(h.button(titled: "PLAY")))
        h.run(seconds: 2)
        h.scene.pause()
        h.run(seconds: 5)
        h.scene.resume()
        h.run(seconds: 1)
        XCTAssertEqual(h.scene.model.elapsed(now: h.now), 3.1, accuracy: 0.2)
        XCTAssertTrue(h.sound.requests.contains(.pauseMusic))
    }

    func testAttractModePlaysAWholeGame() {
        let h = Harness(game: .memoryMatch, seed: 5, now: 10)
        h.fps = 10
        h.scene.isAutoplaying = true
        XCTAssertTrue(h.scene.showingGrid)
        var finished = false
        for _ in 0..<90 {
            h.run(seconds: 1)
            if h.scene.model.phase == .won { finished = true; break }
        }
        XCTAssertTrue(finished)
        XCTAssertGreaterThanOrEqual(h.scene.model.moves, 8)
        XCTAssertNil(h.storage.integer("memory.best.4x4"), "the attract mode sets no record")
        h.run(seconds: 3)
        XCTAssertEqual(h.scene.model.phase, .playing, "and deals again")
    }
}
