import Graphics
import Platform
import TestSupport
import UI
import XCTest
@testable import Arcade

/// Every operator screen in Chinese shows Chinese: the PIN pad, each tab of the menu, each
/// page behind it, their dialogs, the update page at each of its states (RAUC's own English
/// words included), the calibration and the closed card. What may stay Latin: names (the
/// games', "English" on the language row), numbers and what carries a digit (versions,
/// file names, IP addresses, "40%"), units and the abbreviations Chinese uses too (U盘, USB,
/// MB), and a command in quotes. Each screen is also drawn to out/shots/operator-look-*.png
/// in both languages at 800x480 and 480x800, for a person to look at.
final class OperatorChineseTests: XCTestCase {
    static let allowedWords: Set<String> = ["U", "USB", "MB", "GB", "KB", "English"]

    /// The text of the visible labels and buttons under `view`.
    static func texts(_ view: View) -> [String] {
        guard view.isVisibleInTree else { return [] }
        var out: [String] = []
        if let label = view as? Label, !label.text.isEmpty { out.append(label.text) }
        if let button = view as? Button, !button.title.isEmpty { out.append(button.title) }
        for v in view.subviews { out += texts(v) }
        return out
    }

    /// The Latin words of `text` that are neither allowed nor part of a name or a number.
    static func strayLatin(_ text: String, names: [String]) -> [String] {
        var s = text
        for name in names where !name.isEmpty { s = s.split(separator: name, omittingEmptySubsequences: false).joined(separator: " ") }
        // A command in quotes is typed as written.
        var unquoted = "", inQuote = false
        for ch in s {
            if ch == "'" { inQuote.toggle(); unquoted.append(" "); continue }
            unquoted.append(inQuote ? " " : ch)
        }
        // Chunks of ASCII between spaces and non-ASCII characters.
        var stray: [String] = []
        for chunk in unquoted.split(whereSeparator: { $0 == " " || !$0.isASCII }) {
            if chunk.contains(where: \.isNumber) { continue }  // 2026.12.2, x86_64, 40%, 10.0.2.15
            for word in chunk.split(whereSeparator: { !$0.isLetter }) where !allowedWords.contains(String(word)) {
                stray.append(String(word))
            }
        }
        return stray
    }

    private func buttons(_ view: View) -> [Button] {
        var out: [Button] = []
        if let b = view as? Button, b.isVisibleInTree { out.append(b) }
        for v in view.subviews { out += buttons(v) }
        return out
    }

    private func press(_ runner: HeadlessRunner, _ title: String, last: Bool = false) throws {
        let all = buttons(runner.kiosk.screen.scene!).filter { $0.title == title }
        let b = try XCTUnwrap(last ? all.last : all.first, "no button \(title)")
        let r = b.rectInRoot
        runner.tap([(r.midX, r.midY)])
        runner.advance(0.4)
    }

    func testEveryOperatorScreenInChineseShowsNoEnglish() throws {
        for (width, height) in [(800, 480), (480, 800)] {
            for language in [Language.chinese, .english] {
                try walkTheOperatorScreens(width: width, height: height, language: language)
            }
        }
    }

    private func walkTheOperatorScreens(width: Int, height: Int, language: Language) throws {
        let (runner, _) = try makeRunner(self, width: width, height: height) { $0.kiosk.language = language }
        let k = runner.kiosk
        let words = OperatorWords(language)
        // The games' names, and the slot's ("A").
        let names = k.games.map(\.name) + ["A"]
        let shots = TestPaths(file: #filePath).out + "/shots"
        try Files.makeDirectories(shots)
        var looked: [String] = []
        func check(_ name: String, extra: [String] = []) {
            let shown = Self.texts(k.screen.scene!) + extra
            XCTAssertFalse(shown.isEmpty, "\(name): some text")
            if language == .chinese {
                for text in shown {
                    let stray = Self.strayLatin(text, names: names)
                    XCTAssertTrue(stray.isEmpty, "\(name) \(width)x\(height): \"\(text)\" shows \(stray)")
                }
            }
            try? runner.screenshot().writePNG("\(shots)/operator-look-\(name)-\(width)x\(height)-\(language.rawValue).png")
            looked.append(name)
        }
        // The PIN pad, after a wrong PIN.
        runner.key("service")
        let pin = try XCTUnwrap(k.screen.scene as? PINScene)
        for d in "99" { pin.onKey?(String(d)) }
        pin.onKey?("OK")
        runner.advance(0.5)
        check("pin")
        XCTAssertTrue(buttons(pin).contains { $0.title == words.ok })
        for d in "1234" { pin.onKey?(String(d)) }
        pin.onKey?("OK")
        runner.advance(0.3)
        // The menu's tabs, and the exit dialog.
        let twin = SimulatedUpdater()
        k.cabinet.updater = twin
        k.systemVersion = SystemVersion(version: "2026.12.1", imageID: "boardwalk-qemu-x86_64", slot: "A")
        let bundle = "/media/usb-sda1/boardwalk-qemu-x86_64-2026.12.2.raucb"
        twin.bundles = [bundle]
        twin.versions = [bundle: "2026.12.2"]
        for (tab, name) in [(words.screenTab, "screen"), (words.gamesTab, "games"), (words.systemTab, "system"),
                            (words.serviceTab, "service")] {
            try press(runner, tab)
            check(name)
        }
        // A switch shows one word, the state now; tapping it flips the game off and back.
        try press(runner, words.gamesTab)
        let gameSwitch = try XCTUnwrap(buttons(k.screen.scene!).first { $0 is OnOffSwitch } as? OnOffSwitch)
        XCTAssertEqual(gameSwitch.title, words.on)
        try press(runner, words.on)
        XCTAssertEqual(gameSwitch.title, words.off)
        XCTAssertFalse(k.games[0].enabled)
        check("games-one-off")
        try press(runner, words.off)
        XCTAssertTrue(k.games[0].enabled)
        try press(runner, words.serviceTab)
        try press(runner, words.exit)
        check("exit-dialog")
        try press(runner, words.cancel)
        // The pages behind the Service tab, and what they ask.
        k.showPage(.highScores)
        runner.advance(0.4)
        check("scores")
        try press(runner, words.clearAll)
        check("scores-clear-dialog")
        try press(runner, words.cancel)
        k.showPage(.coins)
        runner.advance(0.4)
        check("coins")
        k.showPage(.books)
        runner.advance(0.4)
        let books = try XCTUnwrap(k.screen.scene as? BooksPage)
        check("books", extra: books.lines().flatMap { [$0.0, $0.1] })
        try press(runner, words.reset)
        check("books-reset-dialog")
        try press(runner, words.cancel)
        k.change("kiosk.hours", to: "mon-fri 09:00-18:00, sat+sun 10:00-20:00")
        k.change("display.pixel_shift", to: "false")
        k.showPage(.screenCare)
        runner.advance(0.4)
        check("screen-care")
        k.change("kiosk.hours", to: "mon-thu 10:00-22:00, fri+sat 10:00-02:00, sun closed")
        (k.screen.scene as? OperatorPage)?.refresh()
        runner.advance(0.2)
        check("screen-care-late-hours")
        k.showPage(.sound)
        runner.advance(0.4)
        check("sound")
        // The update page at each of its states, RAUC's own words as they come.
        k.showPage(.update(bundle: bundle))
        runner.advance(0.4)
        check("update-ready")
        try press(runner, words.install)
        check("update-confirm")
        twin.paused = true
        try press(runner, words.install, last: true)
        for (percent, step) in [(0, "Installing"), (20, "Verifying signature"), (40, "Checking manifest contents"),
                                (60, "Determining target install group"), (80, "Checking slot rootfs.1"),
                                (85, "Copying image to rootfs.1"), (99, "Something rauc 2 may say")] {
            twin.currentState = .installing(bundle: bundle, version: "2026.12.2", percent: percent, step: step)
            runner.advance(0.2)
            check("update-progress-\(percent)")
        }
        twin.paused = false
        runner.advance(1)
        check("update-installed")
        twin.versions = [:]
        for (i, why) in ["signature verification failed: unable to get local issuer certificate",
                         "Compatible mismatch: Expected 'boardwalk-rpi' but bundle manifest has 'boardwalk-qemu-x86_64'",
                         "Size of image (912261120) does not fit to slot size 524288000",
                         "Call failed: The name de.pengutronix.rauc was not provided by any .service files",
                         "exit status 1"].enumerated() {
            twin.inspectFailure = why
            k.showPage(.update(bundle: bundle))
            runner.advance(0.4)
            check("update-failed-\(i)")
        }
        // The calibration's crosses, and the closed card a player sees out of hours.
        k.startCalibration()
        runner.advance(0.4)
        check("calibration")
        k.goHome()
        runner.advance(0.3)
        let closed = ClosedScene(language: language, hours: "mon-fri 09:00-18:00, sat+sun 10:00-20:00")
        k.show(closed)
        runner.advance(0.3)
        check("closed-card")
        XCTAssertEqual(looked.count, 32)
        k.goHome()
    }

    func testOpeningHoursInWords() {
        let zh = OperatorWords(.chinese), en = OperatorWords(.english)
        XCTAssertEqual(zh.hours("mon-fri 09:00-18:00, sat+sun 10:00-20:00"), "周一至周五 09:00–18:00，周六、周日 10:00–20:00")
        XCTAssertEqual(en.hours("mon-fri 09:00-18:00, sat+sun 10:00-20:00"), "Mon–Fri 09:00–18:00 · Sat & Sun 10:00–20:00")
        XCTAssertEqual(zh.hours("9:00-21:00"), "每天 09:00–21:00")
        XCTAssertEqual(zh.hours("sun closed, 18:00-02:00"), "周日 休息，其他日子 18:00–次日02:00")
        XCTAssertEqual(en.hours("always"), "Always open")
        XCTAssertEqual(zh.hours("nonsense"), "nonsense", "what doesn't parse shows as written")
    }

    func testRAUCWordsAsTheOperatorsWords() {
        let zh = OperatorWords(.chinese), en = OperatorWords(.english)
        XCTAssertEqual(en.installing(40, "Copying image to rootfs.1"), "Installing: 40 % — copying the new system")
        XCTAssertEqual(zh.installing(40, "Copying image to rootfs.1"), "安装中：40% — 复制新系统")
        XCTAssertEqual(en.updateFailed("signature verification failed: unable to get local issuer certificate"),
                       "Not installed: the update's signature is not valid (it was not signed for this cabinet).")
        XCTAssertEqual(en.installStep("Checking slot rootfs.1 done."), "preparing the other system partition")
        XCTAssertEqual(en.installStep("Installing done."), "done")
        XCTAssertTrue(en.installStep("Pondering").contains("journal"), "an unknown step says where its words are")
        XCTAssertTrue(zh.updateProblem("exit status 1").contains("系统日志"), "an unknown error says where its words are")
        XCTAssertTrue(en.updateProblem("exit status 1").contains("journal"))
    }

    func testTheLatinCheckCatchesEnglish() {
        XCTAssertEqual(Self.strayLatin("安装中：40% Copying image to rootfs.1", names: []), ["Copying", "image", "to"])
        XCTAssertEqual(Self.strayLatin("OK", names: []), ["OK"])
        XCTAssertEqual(Self.strayLatin("版本 2026.12.2（分区 A）", names: []), ["A"])
        XCTAssertEqual(Self.strayLatin("U盘上没有更新 · boardwalk-qemu-x86_64-2026.12.2.raucb · 10.0.2.15", names: []), [])
        XCTAssertEqual(Self.strayLatin("Beat Zombies 3 局", names: ["Beat Zombies"]), [])
        XCTAssertEqual(Self.strayLatin("运行 'sudo systemctl start boardwalk' 即可", names: []), [])
    }
}
