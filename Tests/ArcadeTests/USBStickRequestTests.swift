import Graphics
import Platform
import TestSupport
import UI
import XCTest
@testable import Arcade

/// Sticks only while the operator asks: the kiosk's `usb-wanted` file exists exactly while
/// the System tab, "Update from USB" or the books are on screen, and the System tab finds a
/// stick that is mounted a moment after it opened.
final class USBStickRequestTests: XCTestCase {
    private func press(_ runner: HeadlessRunner, _ title: String) throws {
        func buttons(_ view: View) -> [Button] {
            ((view as? Button).map { $0.isVisibleInTree ? [$0] : [] } ?? []) + view.subviews.flatMap(buttons)
        }
        let b = try XCTUnwrap(buttons(runner.kiosk.screen.scene!).first { $0.title == title }, "no button \(title)")
        runner.tap([(b.rectInRoot.midX, b.rectInRoot.midY)])
        runner.advance(0.4)
    }

    func testTheFileFollowsThePagesThatUseSticks() throws {
        let run = try makeTemporaryDirectory(self)
        let flag = run + "/" + USBStickRequest.fileName
        try writeFile(flag, "operator\n")  // left by a run that crashed with the page open
        let (runner, _) = try makeRunner(self)
        let k = runner.kiosk
        k.cabinet.usbSticks = USBStickRequest(runtimeDirectory: run)
        XCTAssertFalse(Files.exists(flag), "a crashed run's request is withdrawn at start")
        let twin = SimulatedUpdater()
        k.cabinet.updater = twin
        let words = OperatorWords(.english)
        k.openOperatorMenu()
        runner.advance(0.3)
        for d in "1234" { (k.screen.scene as? PINScene)?.onKey?(String(d)) }
        (k.screen.scene as? PINScene)?.onKey?("OK")
        runner.advance(0.3)
        XCTAssertTrue(k.screen.scene is OperatorScene)
        XCTAssertFalse(Files.exists(flag), "the menu's first tab uses no stick")
        try press(runner, words.systemTab)
        XCTAssertTrue(Files.exists(flag), "the System tab looks for bundles")
        XCTAssertEqual(try Files.readText(flag), "operator\n")
        // No stick yet; it is mounted a moment later (boardwalk-usb.service): the tab finds
        // it by itself within a look interval.
        let bundle = "/run/boardwalk-usb/sda1/boardwalk-2026.12.2.raucb"
        twin.bundles = [bundle]
        twin.versions = [bundle: "2026.12.2"]
        runner.advance(USBStickRequest.lookInterval + 0.5, step: 0.25)
        try press(runner, words.update)
        XCTAssertTrue(k.screen.scene is UpdatePage, "the stick found without leaving the tab")
        XCTAssertTrue(Files.exists(flag), "RAUC reads the bundle from the stick while the page shows")
        try press(runner, words.done)
        XCTAssertTrue(k.screen.scene is OperatorScene)
        XCTAssertFalse(Files.exists(flag), "back on the menu's first tab: released")
        try press(runner, words.serviceTab)
        XCTAssertFalse(Files.exists(flag))
        k.showPage(.books)
        runner.advance(0.3)
        XCTAssertTrue(Files.exists(flag), "the books page exports to a stick")
        k.goHome()
        runner.advance(0.3)
        XCTAssertFalse(Files.exists(flag), "home: no stick mounted")
        XCTAssertNil(k.cabinet.usbSticks.nextLook, "and nothing to look for")
    }

    func testWithoutARuntimeDirectoryNothingIsWritten() throws {
        let (runner, _) = try makeRunner(self)
        let k = runner.kiosk
        XCTAssertNil(k.cabinet.usbSticks.path, "headless runs and tests ask no one")
        k.showPage(.books)
        runner.advance(0.3)
        XCTAssertTrue(k.cabinet.usbSticks.isWanted)
        k.goHome()
        runner.advance(0.3)
        XCTAssertFalse(k.cabinet.usbSticks.isWanted)
    }
}
