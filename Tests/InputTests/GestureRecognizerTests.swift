import XCTest
@testable import Input

final class GestureRecognizerTests: XCTestCase {
    func touch(_ phase: TouchPhase, _ id: Int, _ x: Double, _ y: Double, _ t: Double) -> TouchEvent {
        TouchEvent(phase: phase, id: id, x: x, y: y, time: t)
    }

    func testTap() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        XCTAssertEqual(g.handle(touch(.down, 1, 100, 100, 0)), [])
        XCTAssertEqual(g.handle(touch(.move, 1, 104, 103, 0.05)), [])
        XCTAssertEqual(g.handle(touch(.up, 1, 105, 103, 0.1)), [.tap(x: 100, y: 100, touchID: 1)])
        XCTAssertEqual(g.activeTouches, 0)
    }

    func testSwipeInEachDirection() {
        let ends: [(Double, Double, SwipeDirection)] = [(300, 110, .right), (-100, 90, .left), (110, -100, .up), (90, 300, .down)]
        for (x, y, direction) in ends {
            var g = GestureRecognizer(pixelsPerPoint: 1)
            _ = g.handle(touch(.down, 7, 100, 100, 0))
            _ = g.handle(touch(.move, 7, (100 + x) / 2, (100 + y) / 2, 0.05))
            XCTAssertEqual(g.handle(touch(.up, 7, x, y, 0.1)),
                           [.swipe(direction, fromX: 100, fromY: 100, toX: x, toY: y, touchID: 7)])
        }
    }

    func testShortOrDiagonalMovesAreNoGesture() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 100, 100, 0))
        XCTAssertEqual(g.handle(touch(.up, 1, 130, 100, 0.1)), [], "beyond tap slop, short of a swipe")
        _ = g.handle(touch(.down, 2, 100, 100, 0))
        XCTAssertEqual(g.handle(touch(.up, 2, 200, 200, 0.1)), [], "45 degrees: no axis dominates")
        // Wandered away and came back: not a tap.
        _ = g.handle(touch(.down, 3, 100, 100, 0))
        _ = g.handle(touch(.move, 3, 160, 100, 0.1))
        XCTAssertEqual(g.handle(touch(.up, 3, 100, 100, 0.2)), [])
    }

    func testThresholdsScaleWithPixelsPerPoint() {
        var g = GestureRecognizer(pixelsPerPoint: 2.5)
        _ = g.handle(touch(.down, 1, 100, 100, 0))
        XCTAssertEqual(g.handle(touch(.up, 1, 125, 100, 0.1)), [.tap(x: 100, y: 100, touchID: 1)],
                       "25 px is 10 points: still a tap on a dense screen")
        _ = g.handle(touch(.down, 2, 100, 100, 0))
        XCTAssertEqual(g.handle(touch(.up, 2, 180, 100, 0.1)), [], "80 px = 32 points: no swipe")
        _ = g.handle(touch(.down, 3, 100, 100, 0))
        XCTAssertEqual(g.handle(touch(.up, 3, 210, 100, 0.1)).count, 1, "110 px = 44 points: a swipe")
    }

    func testLongPressFiresOnceWhileHeld() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 50, 60, 10))
        XCTAssertEqual(g.nextDeadline!, 10.6, accuracy: 1e-9)
        XCTAssertEqual(g.update(now: 10.3), [])
        XCTAssertEqual(g.handle(touch(.move, 1, 53, 60, 10.4)), [], "a little jitter is still")
        XCTAssertEqual(g.update(now: 10.61), [.longPress(x: 50, y: 60, touchID: 1)])
        XCTAssertNil(g.nextDeadline)
        XCTAssertEqual(g.update(now: 12), [], "once")
        XCTAssertEqual(g.handle(touch(.up, 1, 53, 60, 12.5)), [], "and no tap after it")
    }

    func testLongPressDueAtReleaseStillFires() {
        // No update() call in between (a busy frame): the release reports it.
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 50, 60, 0))
        XCTAssertEqual(g.handle(touch(.up, 1, 50, 60, 0.8)), [.longPress(x: 50, y: 60, touchID: 1)])
    }

    func testMovingCancelsLongPress() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 50, 60, 0))
        _ = g.handle(touch(.move, 1, 90, 60, 0.2))
        XCTAssertNil(g.nextDeadline)
        XCTAssertEqual(g.update(now: 1), [])
    }

    func testTwoSimultaneousTaps() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 100, 100, 0))
        _ = g.handle(touch(.down, 2, 600, 300, 0.01))
        _ = g.handle(touch(.move, 1, 102, 101, 0.05))
        _ = g.handle(touch(.move, 2, 601, 299, 0.05))
        XCTAssertEqual(g.activeTouches, 2)
        XCTAssertEqual(g.handle(touch(.up, 2, 601, 299, 0.1)), [.tap(x: 600, y: 300, touchID: 2)])
        XCTAssertEqual(g.handle(touch(.up, 1, 102, 101, 0.12)), [.tap(x: 100, y: 100, touchID: 1)])
    }

    func testSwipeAndLongPressWithTwoFingers() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 100, 100, 0))
        _ = g.handle(touch(.down, 2, 500, 500, 0))
        _ = g.handle(touch(.move, 2, 500, 300, 0.2))
        XCTAssertEqual(g.update(now: 0.7), [.longPress(x: 100, y: 100, touchID: 1)])
        XCTAssertEqual(g.handle(touch(.up, 2, 500, 250, 0.8)),
                       [.swipe(.up, fromX: 500, fromY: 500, toX: 500, toY: 250, touchID: 2)])
    }

    func testCancelledTouchIsNoGesture() {
        var g = GestureRecognizer(pixelsPerPoint: 1)
        _ = g.handle(touch(.down, 1, 100, 100, 0))
        XCTAssertEqual(g.handle(touch(.cancel, 1, 100, 100, 0.1)), [])
        XCTAssertEqual(g.handle(touch(.up, 1, 100, 100, 0.2)), [], "an up for a forgotten id is nothing")
        XCTAssertEqual(g.update(now: 5), [])
    }
}
