import TestSupport
import XCTest
import Input
@testable import Arcade

private func touch(_ phase: TouchPhase, _ id: Int, _ x: Double, _ y: Double, at time: Double) -> InputEvent {
    .touch(TouchEvent(phase: phase, id: id, x: x, y: y, time: time))
}

private func key(_ key: Key, _ pressed: Bool, at time: Double) -> InputEvent {
    .key(KeyEvent(key: key, isPressed: pressed, time: time))
}

final class IdleTimerTests: XCTestCase {
    func testGameToMenuToAttract() {
        var idle = IdleTimer(idleToMenu: 90, menuToAttract: 60, mode: .game, now: 0)
        XCTAssertEqual(idle.deadline, 90)
        XCTAssertNil(idle.update(now: 50))
        XCTAssertEqual(idle.handle(touch(.down, 1, 10, 10, at: 50)).deliver, true)
        XCTAssertEqual(idle.deadline, 140, "input pushes the deadline")
        XCTAssertNil(idle.update(now: 139))
        XCTAssertEqual(idle.update(now: 140), .toMenu)
        XCTAssertEqual(idle.mode, .menu)
        XCTAssertEqual(idle.deadline, 200)
        XCTAssertEqual(idle.update(now: 200.5), .toAttract)
        XCTAssertEqual(idle.mode, .attract)
        XCTAssertNil(idle.deadline, "the attract mode runs until touched")
        XCTAssertNil(idle.update(now: 10_000))
    }

    func testFirstTouchInAttractWakesTheMenuAndIsSwallowedWhole() {
        var idle = IdleTimer(idleToMenu: 90, menuToAttract: 60, mode: .attract, now: 0)
        XCTAssertEqual(idle.handle(touch(.down, 7, 300, 200, at: 10)),
                       IdleTimer.Decision(deliver: false, transition: .toMenu))
        XCTAssertEqual(idle.mode, .menu)
        // The rest of that touch would be a tap on a menu tile: swallowed too.
        XCTAssertFalse(idle.handle(touch(.move, 7, 302, 201, at: 10.05)).deliver)
        XCTAssertFalse(idle.handle(touch(.up, 7, 302, 201, at: 10.1)).deliver)
        // The next touch is a real one.
        XCTAssertEqual(idle.handle(touch(.down, 8, 300, 200, at: 11)), IdleTimer.Decision(deliver: true, transition: nil))
        XCTAssertTrue(idle.handle(touch(.up, 8, 300, 200, at: 11.1)).deliver)
        XCTAssertEqual(idle.deadline, 71.1)
    }

    func testKeyWakesAttractAndItsReleaseIsSwallowed() {
        var idle = IdleTimer(idleToMenu: 90, menuToAttract: 60, mode: .attract, now: 0)
        XCTAssertEqual(idle.handle(key(.confirm, true, at: 5)).transition, .toMenu)
        XCTAssertFalse(idle.handle(key(.confirm, false, at: 5.1)).deliver)
        XCTAssertTrue(idle.handle(key(.confirm, true, at: 6)).deliver)
    }

    func testZeroMeansNeverAndOperatorMenuTimesOut() {
        var idle = IdleTimer(idleToMenu: 0, menuToAttract: 0, mode: .game, now: 0)
        XCTAssertNil(idle.deadline)
        XCTAssertNil(idle.update(now: 1e9))
        idle.idleToMenu = 30
        idle.enter(.operatorMenu, now: 100)
        XCTAssertEqual(idle.update(now: 130), .toMenu)
        XCTAssertNil(idle.update(now: 1e9), "menu to attract is off")
    }
}

final class OperatorGestureTests: XCTestCase {
    let width = 800.0, height = 480.0

    func testTwoFingersInOppositeCornersHeldThreeSecondsOpensIt() {
        var gesture = OperatorGesture(width: width, height: height)
        XCTAssertFalse(gesture.handle(touch(.down, 1, 10, 10, at: 100)))
        XCTAssertNil(gesture.deadline)
        XCTAssertFalse(gesture.handle(touch(.down, 2, 790, 470, at: 100.2)))
        XCTAssertEqual(gesture.deadline, 103.2)
        XCTAssertFalse(gesture.handle(touch(.move, 1, 12, 11, at: 101)))
        XCTAssertFalse(gesture.update(now: 103.1))
        XCTAssertTrue(gesture.update(now: 103.2))
        XCTAssertFalse(gesture.update(now: 110), "fires once per hold")
        // Lift and hold again: fires again.
        XCTAssertFalse(gesture.handle(touch(.up, 2, 790, 470, at: 111)))
        XCTAssertFalse(gesture.handle(touch(.down, 3, 5, 470, at: 112)), "bottom-left is not opposite top-left")
        XCTAssertNil(gesture.deadline)
        XCTAssertFalse(gesture.handle(touch(.up, 1, 12, 11, at: 112.5)))
        XCTAssertFalse(gesture.handle(touch(.down, 4, 795, 3, at: 113)))
        XCTAssertTrue(gesture.handle(touch(.move, 4, 794, 4, at: 116.5)), "a move after the hold time fires too")
    }

    func testOneFingerNeverOpensIt() {
        var gesture = OperatorGesture(width: width, height: height)
        XCTAssertFalse(gesture.handle(touch(.down, 1, 5, 5, at: 0)))
        XCTAssertNil(gesture.deadline)
        XCTAssertFalse(gesture.update(now: 60))
        XCTAssertFalse(gesture.handle(touch(.move, 1, 795, 475, at: 61)))
        XCTAssertFalse(gesture.update(now: 120))
    }

    func testShortTwoFingerTouchDoesNotOpenIt() {
        var gesture = OperatorGesture(width: width, height: height)
        XCTAssertFalse(gesture.handle(touch(.down, 1, 5, 5, at: 0)))
        XCTAssertFalse(gesture.handle(touch(.down, 2, 795, 475, at: 0.1)))
        XCTAssertFalse(gesture.handle(touch(.up, 2, 795, 475, at: 2.5)))
        XCTAssertNil(gesture.deadline)
        XCTAssertFalse(gesture.update(now: 10))
    }

    func testFingersOutsideCornersOrAThirdFingerDoNotCount() {
        var gesture = OperatorGesture(width: width, height: height)
        _ = gesture.handle(touch(.down, 1, 400, 240, at: 0))
        _ = gesture.handle(touch(.down, 2, 795, 475, at: 0))
        XCTAssertNil(gesture.deadline)
        _ = gesture.handle(touch(.move, 1, 5, 5, at: 1))
        XCTAssertEqual(gesture.deadline, 4)
        _ = gesture.handle(touch(.down, 3, 400, 240, at: 2))
        XCTAssertNil(gesture.deadline)
        XCTAssertFalse(gesture.update(now: 10))
        // A finger sliding out of its corner breaks the hold.
        _ = gesture.handle(touch(.up, 3, 400, 240, at: 11))
        XCTAssertEqual(gesture.deadline, 14)
        _ = gesture.handle(touch(.move, 2, 600, 300, at: 12))
        XCTAssertFalse(gesture.update(now: 20))
    }

    func testServiceKeyOpensItAtOnce() {
        var gesture = OperatorGesture(width: width, height: height)
        XCTAssertTrue(gesture.handle(key(.service, true, at: 0)))
        XCTAssertFalse(gesture.handle(key(.service, false, at: 0.1)))
        XCTAssertFalse(gesture.handle(key(.confirm, true, at: 0.2)))
    }

    func testCornerSizeScalesWithTheScreen() {
        XCTAssertEqual(OperatorGesture(width: 480, height: 320).cornerSize, 48)
        XCTAssertEqual(OperatorGesture(width: 1920, height: 1080).cornerSize, 162)
    }
}

/// A quick hash for tests (the kiosk's own are 100,000 iterations).
func testPIN(_ digits: String) -> PINHash {
    PINHash(pin: digits, salt: Array("salt-for-tests".utf8), iterations: 10)
}

final class PINEntryTests: XCTestCase {
    func testRightPINIsAccepted() {
        var pad = PINEntry(verifier: testPIN("2580"))
        for digit in [2, 5, 8, 1] { pad.press(digit: digit, now: 0) }
        pad.backspace()
        pad.press(digit: 0, now: 0)
        XCTAssertEqual(pad.masked, "••••")
        XCTAssertEqual(pad.submit(now: 1), .accepted)
        XCTAssertEqual(pad.entered, "")
    }

    func testLockoutAfterRepeatedWrongTriesAndItDoubles() {
        var pad = PINEntry(verifier: testPIN("2580"), maxAttempts: 3, lockoutSeconds: 60)
        func attempt(_ digits: [Int], at now: Double) -> PINEntry.Outcome {
            for digit in digits { pad.press(digit: digit, now: now) }
            return pad.submit(now: now)
        }
        XCTAssertEqual(attempt([1, 1, 1, 1], at: 0), .rejected(attemptsLeft: 2))
        XCTAssertEqual(attempt([2, 5, 8], at: 1), .rejected(attemptsLeft: 1))
        XCTAssertEqual(attempt([0, 0, 0, 0], at: 2), .lockedOut(until: 62))
        XCTAssertTrue(pad.isLockedOut(now: 30))
        XCTAssertEqual(attempt([2, 5, 8, 0], at: 30), .lockedOut(until: 62), "even the right PIN waits")
        XCTAssertEqual(pad.entered, "")
        XCTAssertFalse(pad.isLockedOut(now: 62))
        XCTAssertEqual(attempt([9, 9, 9, 9], at: 70), .rejected(attemptsLeft: 2))
        XCTAssertEqual(attempt([9, 9, 9, 9], at: 71), .rejected(attemptsLeft: 1))
        XCTAssertEqual(attempt([9, 9, 9, 9], at: 72), .lockedOut(until: 192))
        XCTAssertEqual(attempt([2, 5, 8, 0], at: 200), .accepted)
        XCTAssertEqual(attempt([9, 9, 9, 9], at: 201), .rejected(attemptsLeft: 2))
    }

    func testEntryIsBounded() {
        var pad = PINEntry(verifier: testPIN("1234"))
        for _ in 0..<20 { pad.press(digit: 1, now: 0) }
        pad.press(digit: 12, now: 0)
        XCTAssertEqual(pad.entered.count, PINEntry.maxLength)
        XCTAssertEqual(pad.submit(now: 0), .rejected(attemptsLeft: 2))
    }

    func testOKWithNothingTypedCostsNoTry() {
        var pad = PINEntry(verifier: testPIN("1234"))
        for second in 0..<10 {
            XCTAssertEqual(pad.submit(now: Double(second)), .nothingEntered, "an empty entry is no guess")
        }
        XCTAssertFalse(pad.isLockedOut(now: 10))
        XCTAssertEqual(pad.persisted(now: 10), PINEntry.Persisted())
        pad.press(digit: 9, now: 11)
        XCTAssertEqual(pad.submit(now: 11), .rejected(attemptsLeft: 2), "the first real guess is the first try")
    }
}
