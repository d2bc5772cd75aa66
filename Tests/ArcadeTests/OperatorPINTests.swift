import Foundation
import TestSupport
import XCTest
@testable import Arcade
@testable import Platform

/// The operator PIN: stored hashed, weak ones spotted, tries and lockout kept across a
/// restart, no menu without a PIN, digits from a keyboard into the pad.
final class OperatorPINTests: XCTestCase {
    func testStoredFormRoundTripsAndMatchesPython() throws {
        // What images/lib.sh bw_set_pin writes (Python's hashlib) for 123456.
        let text = "pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$5f96a43ec085d7e812c2d0fc4b797107078dce886b2ddcb376e63c5b07cdbac0"
        let hash = try XCTUnwrap(PINHash(parsing: text))
        XCTAssertTrue(hash.matches("123456"))
        XCTAssertFalse(hash.matches("123457"))
        XCTAssertFalse(hash.matches(""))
        XCTAssertEqual(hash.encoded, text)
        XCTAssertFalse("\(hash)".contains("5f96a4"), "a log line never shows the hash")
        for bad in ["1234", "pbkdf2-sha256$0$0011223344556677$" + String(repeating: "0", count: 64),
                    "pbkdf2-sha256$1000$0011$" + String(repeating: "0", count: 64),
                    "pbkdf2-sha256$1000$00112233445566778899$" + String(repeating: "0", count: 62),
                    "pbkdf2-sha256$99999999999$00112233445566778899$" + String(repeating: "0", count: 64),
                    "md5$1000$00112233445566778899$" + String(repeating: "0", count: 64), ""] {
            XCTAssertNil(PINHash(parsing: bad), bad)
        }
    }

    func testWeakPINs() {
        for weak in ["1234", "0000", "7777", "123456", "4321", "98765", "12"] { XCTAssertTrue(PINHash.isWeak(weak), weak) }
        for fine in ["2580", "482913", "1357", "1233", "90210"] { XCTAssertFalse(PINHash.isWeak(fine), fine) }
    }

    func testNoPINNoMenu() throws {
        let (runner, _) = try makeRunner(self) { $0.kiosk.operatorPIN = nil }
        runner.key("service")
        XCTAssertEqual(runner.kiosk.mode, .menu, "no PIN set: F12 opens nothing")
        runner.kiosk.openOperatorMenu()
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }

    func testKeyboardDigitsEnterThePad() throws {
        let (runner, _) = try makeRunner(self)
        runner.key("service")
        XCTAssertEqual(runner.kiosk.mode, .pin)
        for d in ["digit1", "digit2", "digit3", "digit4"] { runner.key(d) }
        XCTAssertEqual((runner.kiosk.screen.scene as? PINScene)?.digitsEntered, 4)
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.mode, .operatorMenu)
        // Home again: the operator scene holds the kiosk until it is closed.
        runner.key("back")
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }

    func testFailedTriesAndLockoutSurviveARestart() throws {
        let dir = try makeTemporaryDirectory(self)
        func runner() throws -> (HeadlessRunner, StateStore) { try makeRunner(self, directory: dir) }
        do {
            let (r, store) = try runner()
            r.key("service")
            for _ in 0..<2 {
                for d in ["digit9", "digit9", "digit9", "digit9", "confirm"] { r.key(d) }
            }
            XCTAssertEqual(store.counter("operator_pin.failures"), 2, "written at once")
            // Killed here (no clean close): a new process must still count the two.
        }
        do {
            let (r, store) = try runner()
            r.key("service")
            for d in ["digit9", "digit9", "digit9", "digit9", "confirm"] { r.key(d) }
            XCTAssertEqual(store.counter("operator_pin.lockouts"), 1, "the third wrong PIN across the restart locks")
            XCTAssertEqual(store.counter("operator_pin.locked_seconds"), 60)
        }
        let (r, _) = try runner()
        r.key("service")
        for d in ["digit1", "digit2", "digit3", "digit4", "confirm"] { r.key(d) }
        XCTAssertEqual(r.kiosk.mode, .pin, "still locked after the restart, even for the right PIN")
    }

    func testRestoreClampsHandEditedState() {
        var pad = PINEntry(verifier: testPIN("2580"))
        pad.restore(.init(failures: .max, lockouts: .max, lockedSeconds: .max), now: 10)
        XCTAssertTrue(pad.isLockedOut(now: 10 + 3599))
        XCTAssertFalse(pad.isLockedOut(now: 10 + 3600))
        XCTAssertEqual(pad.persisted(now: 10), .init(failures: 2, lockouts: 64, lockedSeconds: 3600))
        for d in [1, 1, 1, 1] { pad.press(digit: d, now: 5000) }
        XCTAssertEqual(pad.submit(now: 5000), .lockedOut(until: 5000 + 3600), "one more wrong PIN: the longest lockout")
    }
}

/// The PIN's PBKDF2 on a thread of its own, as the live kiosk does it: the pad says it is
/// checking and the loop goes on; a verdict counts even when its pad is gone.
final class PINCheckInBackgroundTests: XCTestCase {
    /// A fifth of the kiosk's work factor: still a second or more in a debug build, far
    /// longer than OK takes to return.
    private let slowPIN = PINHash(pin: "2580", salt: Array("salt-for-tests".utf8), iterations: 20_000)

    private func makeLiveLikeRunner() throws -> (HeadlessRunner, StateStore) {
        let (runner, store) = try makeRunner(self) { $0.kiosk.operatorPIN = slowPIN }
        runner.kiosk.cabinet.worksInBackground = true
        return (runner, store)
    }

    /// Runs the loop (ticks and frames) until the verdict is taken.
    private func waitForVerdict(_ runner: HeadlessRunner, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(120)
        while runner.kiosk.access.pinCheck != nil && Date() < deadline {
            usleep(2000)
            runner.advance(PINCheck.pollInterval)
        }
        XCTAssertNil(runner.kiosk.access.pinCheck, "no verdict in 120 s", file: file, line: line)
    }

    private func type(_ digits: String, _ runner: HeadlessRunner) {
        for d in digits { runner.key("digit\(d)") }
        runner.key("confirm")
    }

    func testTheRightPINIsCheckedWhileThePadWaits() throws {
        let (runner, store) = try makeLiveLikeRunner()
        runner.key("service")
        type("2580", runner)
        let pad = try XCTUnwrap(runner.kiosk.screen.scene as? PINScene)
        XCTAssertTrue(pad.isChecking, "OK returns before the hash is worked out")
        XCTAssertEqual(pad.digitsEntered, 4, "the dots stay while it is checked")
        XCTAssertEqual(runner.kiosk.mode, .pin)
        XCTAssertNotNil(runner.kiosk.nextDeadline, "the loop wakes to look for the verdict")
        type("1", runner)
        XCTAssertEqual(pad.digitsEntered, 4, "keys wait: one check at a time")
        runner.advance(0.1)
        XCTAssertEqual(runner.kiosk.mode, .pin, "frames go on meanwhile")
        waitForVerdict(runner)
        XCTAssertEqual(runner.kiosk.mode, .operatorMenu)
        XCTAssertEqual(store.counter("operator_pin.failures"), 0)
        runner.key("back")  // the operator scene holds the kiosk until it is closed
    }

    func testAVerdictCountsAfterItsPadIsGone() throws {
        let (runner, store) = try makeLiveLikeRunner()
        runner.key("service")
        type("9999", runner)
        runner.key("back")  // cancelled while it is checked
        XCTAssertEqual(runner.kiosk.mode, .menu)
        waitForVerdict(runner)
        XCTAssertEqual(store.counter("operator_pin.failures"), 1, "cancelling does not buy a free guess")
        XCTAssertNotEqual(runner.kiosk.mode, .pin)

        runner.key("service")
        type("2580", runner)
        runner.key("back")
        waitForVerdict(runner)
        XCTAssertNotEqual(runner.kiosk.mode, .operatorMenu, "a right PIN whose pad is gone opens nothing")
        XCTAssertEqual(store.counter("operator_pin.failures"), 0, "but it clears the count, as at the pad")
    }

    func testAWrongPINIsRefusedOnThePad() throws {
        let (runner, store) = try makeLiveLikeRunner()
        runner.key("service")
        type("1111", runner)
        waitForVerdict(runner)
        let pad = try XCTUnwrap(runner.kiosk.screen.scene as? PINScene)
        XCTAssertFalse(pad.isChecking)
        XCTAssertEqual(pad.digitsEntered, 0)
        XCTAssertEqual(store.counter("operator_pin.failures"), 1)
        type("2580", runner)
        waitForVerdict(runner)
        XCTAssertEqual(runner.kiosk.mode, .operatorMenu)
        runner.key("back")
    }
}
