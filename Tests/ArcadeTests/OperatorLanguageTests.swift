import Graphics
import Input
import TestSupport
import UI
import XCTest
@testable import Arcade

/// The operator's screens speak the kiosk's language: the PIN pad, every tab of the
/// operator menu and its dialogs, in both orientations.
final class OperatorLanguageTests: XCTestCase {
    private func buttons(_ view: View) -> [Button] {
        var out: [Button] = []
        if let b = view as? Button, b.isVisibleInTree { out.append(b) }
        for v in view.subviews { out += buttons(v) }
        return out
    }

    func testOperatorScreensInBothLanguages() throws {
        for (width, height, language) in [(480, 800, Language.chinese), (800, 480, Language.english),
                                          (800, 480, Language.chinese)] {
            let dir = try makeTemporaryDirectory(self)
            var settings = Settings()
            settings.kiosk.stateDir = dir
            settings.kiosk.dataDir = sourceRoot + "/data"
            settings.kiosk.language = language
            settings.kiosk.operatorPIN = HeadlessRunner.tourPIN
            let store = StateStore(directory: dir, now: 1)
            let runner = try HeadlessRunner(settings: settings, width: width, height: height, store: store, catalog: .standard)
            runner.frameInterval = 1.0 / 20
            let suffix = "\(width)x\(height)-\(language.rawValue)"
            runner.key("service")
            let pin = try XCTUnwrap(runner.kiosk.screen.scene as? PINScene)
            for d in "99" { pin.onKey?(String(d)) }
            pin.onKey?("OK")
            runner.advance(0.5)
            assertMatchesReference(runner.screenshot(), "operator-pin-\(suffix)")
            for d in "1234" { pin.onKey?(String(d)) }
            pin.onKey?("OK")
            let menu = try XCTUnwrap(runner.kiosk.screen.scene as? OperatorScene)
            let words = OperatorWords(language)
            for (tab, name) in [(words.gamesTab, "games"), (words.serviceTab, "service")] {
                let button = try XCTUnwrap(buttons(menu).first { $0.title == tab })
                let r = button.rectInRoot
                runner.tap([(r.midX, r.midY)])
                runner.advance(0.3)
                assertMatchesReference(runner.screenshot(), "operator-\(name)-\(suffix)")
            }
            // The exit dialog: its words too.
            let exit = try XCTUnwrap(buttons(menu).first { $0.title == words.exit })
            let r = exit.rectInRoot
            runner.tap([(r.midX, r.midY)])
            runner.advance(0.5)
            assertMatchesReference(runner.screenshot(), "operator-exit-dialog-\(suffix)")
            XCTAssertTrue(buttons(menu).contains { $0.title == words.cancel })
            runner.kiosk.goHome()
        }
    }

    func testSwitchingLanguageRelabelsTheMenuAtOnce() throws {
        let (runner, _) = try makeRunner(self)
        runner.key("service")
        let pin = try XCTUnwrap(runner.kiosk.screen.scene as? PINScene)
        for d in "1234" { pin.onKey?(String(d)) }
        pin.onKey?("OK")
        let before = try XCTUnwrap(runner.kiosk.screen.scene as? OperatorScene)
        let switchButton = try XCTUnwrap(buttons(before).first { $0.title == "Switch" })
        switchButton.action?()
        let after = try XCTUnwrap(runner.kiosk.screen.scene as? OperatorScene)
        XCTAssertFalse(after === before, "rebuilt in the new language")
        XCTAssertTrue(buttons(after).contains { $0.title == "完成" })
        runner.kiosk.goHome()
    }
}
