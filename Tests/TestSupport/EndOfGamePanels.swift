import Graphics
import UI
import XCTest

/// The screens every game's end-of-game panel is checked on: landscape and portrait, in
/// both languages.
public let endPanelScreens: [(width: Int, height: Int, language: Language)] = [
    (800, 480, .english), (800, 480, .chinese), (480, 800, .english), (480, 800, .chinese),
]

/// Brings a game to its end-of-game panel on each of `endPanelScreens` (`make` builds the
/// harness for a screen, `finish` plays it to the end) and checks what a player sees: the
/// panel inside the screen, everything on it inside the panel, its buttons shown, and the
/// picture against References/NAME-WIDTHxHEIGHT-LANG.png beside the calling test.
public func checkEndPanels<S: GameScene>(_ name: String, file: StaticString = #filePath, line: UInt = #line,
                                         make: (_ width: Int, _ height: Int, _ language: Language) -> SceneHarness<S>,
                                         finish: (SceneHarness<S>) throws -> Void) rethrows {
    for screen in endPanelScreens {
        let harness = make(screen.width, screen.height, screen.language)
        harness.shotSuffix = "\(screen.width)x\(screen.height)-\(screen.language.rawValue)"
        try finish(harness)
        harness.run(seconds: EndOfGamePanel.buttonDelay + Theme.normal + 0.1)
        guard let panel = harness.scene.endPanel else {
            XCTFail("no end-of-game panel at \(harness.shotSuffix)", file: file, line: line)
            continue
        }
        let screenRect = Rect(0, 0, harness.scene.size.width, harness.scene.size.height)
        XCTAssertTrue(contains(screenRect, panel.panel.frame), "the panel leaves the screen at \(harness.shotSuffix)",
                      file: file, line: line)
        let panelRect = Rect(0, 0, panel.panel.frame.width, panel.panel.frame.height)
        for view in panel.panel.subviews where !contains(panelRect, view.frame) {
            XCTFail("\(view) at \(view.frame) leaves the panel \(panelRect) at \(harness.shotSuffix)", file: file, line: line)
        }
        XCTAssertTrue(panel.buttons.allSatisfy(\.isVisibleInTree), "buttons shown at \(harness.shotSuffix)",
                      file: file, line: line)
        harness.check(name, file: file, line: line)
    }
}

private func contains(_ outer: Rect, _ inner: Rect) -> Bool {
    inner.minX >= outer.minX && inner.minY >= outer.minY && inner.maxX <= outer.maxX && inner.maxY <= outer.maxY
}
