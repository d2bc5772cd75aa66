import Graphics
import Platform
import TestSupport
import UI
import XCTest
@testable import Arcade

/// "Update from USB": the System tab finds a bundle on a stick, the page shows its version,
/// installs it after asking, shows the progress and the result, in both languages; and the
/// real updater's talk with RAUC (its tools stood in for by scripts).
final class UpdateFromUSBTests: XCTestCase {
    private func buttons(_ view: View) -> [Button] {
        var out: [Button] = []
        if let b = view as? Button, b.isVisibleInTree { out.append(b) }
        for v in view.subviews { out += buttons(v) }
        return out
    }

    private func press(_ runner: HeadlessRunner, _ title: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let b = try XCTUnwrap(buttons(runner.kiosk.screen.scene!).first { $0.title == title }, "no button \(title)", file: file, line: line)
        XCTAssertTrue(b.isEnabled, "\(title) is enabled", file: file, line: line)
        let r = b.rectInRoot
        runner.tap([(r.midX, r.midY)])
        runner.advance(0.4)
    }

    func testTheSystemTabAndTheUpdatePagesInBothLanguages() throws {
        for (width, height, language) in [(800, 480, Language.english), (800, 480, Language.chinese),
                                          (480, 800, Language.english), (480, 800, Language.chinese)] {
            let (runner, _) = try makeRunner(self, width: width, height: height) { $0.kiosk.language = language }
            let suffix = "\(width)x\(height)-\(language.rawValue)"
            let k = runner.kiosk
            let words = OperatorWords(language)
            let twin = SimulatedUpdater()
            k.cabinet.updater = twin
            k.systemVersion = SystemVersion(version: "2026.12.1", imageID: "boardwalk-qemu-x86_64", slot: "A")
            k.showOperatorScene()
            runner.advance(0.3)
            // No stick: the row says so and Update is off.
            try press(runner, words.systemTab)
            var update = try XCTUnwrap(buttons(k.screen.scene!).first { $0.title == words.update })
            XCTAssertFalse(update.isEnabled)
            // A stick with a bundle, seen when the tab shows again.
            let bundle = "/media/usb-sda1/boardwalk-qemu-x86_64-2026.12.2.raucb"
            twin.bundles = [bundle]
            twin.versions = [bundle: "2026.12.2"]
            try press(runner, words.serviceTab)
            try press(runner, words.systemTab)
            assertMatchesReference(runner.screenshot(), "operator-system-\(suffix)")
            update = try XCTUnwrap(buttons(k.screen.scene!).first { $0.title == words.update })
            try press(runner, words.update)
            let page = try XCTUnwrap(k.screen.scene as? UpdatePage)
            XCTAssertEqual(page.bundle, bundle)
            assertMatchesReference(runner.screenshot(), "update-ready-\(suffix)")
            // Install asks first; then the progress, one step a frame.
            try press(runner, words.install)
            XCTAssertTrue(buttons(k.screen.scene!).contains { $0.title == words.cancel }, "a dialog asks")
            let confirm = try XCTUnwrap(buttons(k.screen.scene!).last { $0.title == words.install })
            twin.paused = true
            let r = confirm.rectInRoot
            runner.tap([(r.midX, r.midY)])
            runner.advance(0.1)
            // Held at one step for the picture (the page reads it on its next frame).
            twin.currentState = .installing(bundle: bundle, version: "2026.12.2", percent: 40, step: "Copying image to rootfs.1")
            runner.advance(0.4)
            XCTAssertTrue(page.isLive, "frames come while it installs")
            assertMatchesReference(runner.screenshot(), "update-progress-\(suffix)")
            twin.paused = false
            runner.advance(1)
            XCTAssertEqual(twin.installed, [bundle])
            XCTAssertFalse(page.isLive)
            assertMatchesReference(runner.screenshot(), "update-installed-\(suffix)")
            // A bundle the cabinet refuses: the reason shows, nothing is installed.
            twin.versions = [:]
            twin.inspectFailure = "signature verification failed: unable to get local issuer certificate"
            k.showPage(.update(bundle: bundle))
            runner.advance(0.4)
            assertMatchesReference(runner.screenshot(), "update-failed-\(suffix)")
            XCTAssertFalse(try XCTUnwrap(buttons(k.screen.scene!).first { $0.title == words.install }).isEnabled)
            k.goHome()
        }
    }

    func testTheOperatorMenuStaysOpenWhileAnUpdateInstallsThenTimesOut() throws {
        // An install from a stick takes minutes on a board (104 s on the virtual board when
        // the host was busy): the operator must still see how it ended.
        let (runner, _) = try makeRunner(self) { $0.kiosk.idleToMenuSeconds = 30 }
        let k = runner.kiosk
        let twin = SimulatedUpdater()
        let bundle = "/media/usb-sda1/boardwalk-2026.12.2.raucb"
        twin.bundles = [bundle]
        twin.versions = [bundle: "2026.12.2"]
        k.cabinet.updater = twin
        k.openOperatorMenu()  // as an operator does: the PIN, then the menu and its idle clock
        runner.advance(0.3)
        let pin = try XCTUnwrap(k.screen.scene as? PINScene)
        for d in "1234" { pin.onKey?(String(d)) }
        pin.onKey?("OK")
        runner.advance(0.3)
        k.showPage(.update(bundle: bundle))
        runner.advance(0.4)
        let page = try XCTUnwrap(k.screen.scene as? UpdatePage)
        let words = OperatorWords(.english)
        try press(runner, words.install)
        let confirm = try XCTUnwrap(buttons(k.screen.scene!).last { $0.title == words.install })
        twin.paused = true
        runner.tap([(confirm.rectInRoot.midX, confirm.rectInRoot.midY)])
        runner.advance(0.4)
        runner.advance(120, step: 0.5)  // four idle timeouts with nobody touching it
        XCTAssertTrue(k.screen.scene === page, "the update page stays while it installs")
        XCTAssertTrue(twin.isWorking)
        twin.paused = false
        runner.advance(1)
        XCTAssertEqual(twin.installed, [bundle])
        runner.advance(25, step: 0.5)
        XCTAssertTrue(k.screen.scene === page, "the result stays for the idle timeout after the install")
        runner.advance(10, step: 0.5)
        XCTAssertFalse(k.screen.scene is OperatorPage, "then the menu closes as ever: \(String(describing: k.screen.scene))")
    }

    func testVersionsAreOrderedAsDebianOrdersThem() {
        XCTAssertEqual(SystemVersion.isOlder("2026.12.1", than: "2026.12.10"), true)
        XCTAssertEqual(SystemVersion.isOlder("2026.12.10", than: "2026.12.9"), false)
        XCTAssertEqual(SystemVersion.isOlder("2", than: "2"), false)
        XCTAssertEqual(SystemVersion.isOlder("1", than: "2"), true)
        XCTAssertEqual(SystemVersion.isOlder("1.9~rc1", than: "1.9"), true, "a release candidate comes before its release")
        XCTAssertEqual(SystemVersion.isOlder("1.9", than: "1.9+fix1"), true)
        XCTAssertEqual(SystemVersion.isOlder("1.10", than: "1.9.9"), false)
        XCTAssertEqual(SystemVersion.isOlder("01.2", than: "1.10"), true, "leading zeros are numbers")
        XCTAssertNil(SystemVersion.isOlder("9ccb926", than: "2026.12.1"), "a developer's commit id has no order")
        XCTAssertNil(SystemVersion.isOlder("2026.12.1", than: SystemVersion.unknown))
        XCTAssertNil(SystemVersion.isOlder("", than: "1"))
    }

    func testAnOlderBundleIsInstalledOnlyWhenTheOperatorSaysGoBack() throws {
        let (runner, _) = try makeRunner(self)
        let k = runner.kiosk
        k.systemVersion = SystemVersion(version: "2026.12.2", imageID: "boardwalk-qemu-x86_64", slot: "A")
        let twin = SimulatedUpdater()
        let bundle = "/media/usb-sda1/boardwalk-2026.12.1.raucb"
        twin.bundles = [bundle]
        twin.versions = [bundle: "2026.12.1"]
        k.cabinet.updater = twin
        k.showPage(.update(bundle: bundle))
        runner.advance(0.4)
        let words = OperatorWords(.english)
        try press(runner, words.install)
        let labels = labelTexts(k.screen.scene!)
        XCTAssertTrue(labels.contains(words.downgradeQuestion("2026.12.1", running: "2026.12.2")), "\(labels)")
        try press(runner, words.cancel)
        XCTAssertEqual(twin.installed, [], "cancelled: nothing installed")
        try press(runner, words.install)
        try press(runner, words.downgrade)
        runner.advance(2)
        XCTAssertEqual(twin.installed, [bundle])
    }

    private func labelTexts(_ view: View) -> [String] {
        guard !view.isHidden else { return [] }
        return ((view as? Label).map { [$0.text] } ?? []) + view.subviews.flatMap(labelTexts)
    }

    func testBundlesAreFoundOnMountedSticksOnly() throws {
        let stick = try makeTemporaryDirectory(self)
        for name in ["b-2.raucb", "a-1.raucb", "notes.txt", ".hidden.raucb"] { try writeFile(stick + "/" + name, "x") }
        let other = try makeTemporaryDirectory(self)
        try writeFile(other + "/c.raucb", "x")
        let mounts = """
            /dev/vda2 / ext4 ro,relatime 0 0
            /dev/sda1 \(stick) vfat ro,nosuid,nodev,noexec 0 0
            /dev/mmcblk0p3 \(other) ext4 rw 0 0
            """
        XCTAssertEqual(USBBundles.find(mounts: mounts), [stick + "/a-1.raucb", stick + "/b-2.raucb"])
        XCTAssertEqual(USBBundles.find(mounts: ""), [])
        // A hostile stick: a FIFO (RAUC would wait on it for ever), a link out of the stick,
        // a directory: none is a bundle.
        XCTAssertEqual(mkfifo(stick + "/fifo.raucb", 0o644), 0)
        XCTAssertEqual(symlink(other + "/c.raucb", stick + "/link.raucb"), 0)
        XCTAssertEqual(mkdir(stick + "/dir.raucb", 0o755), 0)
        XCTAssertEqual(USBBundles.find(mounts: mounts), [stick + "/a-1.raucb", stick + "/b-2.raucb"])
    }

    func testRaucAnswersAreRead() {
        let ok = Subprocess.Result(status: 0, output: #"{"type":"ss","data":["boardwalk-qemu-x86_64","2026.12.2"]}"# + "\n")
        XCTAssertEqual(try? RaucUpdater.parseInfo(ok).get(), "2026.12.2")
        let refused = Subprocess.Result(status: 1, output: "Call failed: signature verification failed\n")
        guard case .failure(let problem) = RaucUpdater.parseInfo(refused) else { return XCTFail("refused") }
        XCTAssertEqual(problem.description, "Call failed: signature verification failed")
        let garbled = Subprocess.Result(status: 0, output: "ss \"a\" \"b\"\n")
        XCTAssertThrowsError(try RaucUpdater.parseInfo(garbled).get())
        XCTAssertEqual(RaucUpdater.parseProgress("  40% Copying image to rootfs.1")?.0, 40)
        XCTAssertEqual(RaucUpdater.parseProgress("100% Installing done.")?.1, "Installing done.")
        XCTAssertNil(RaucUpdater.parseProgress("installing"))
        XCTAssertNil(RaucUpdater.parseProgress("140% x"))
    }

    /// The real updater end to end, with scripts standing in for busctl and rauc.
    func testTheRealUpdaterRunsTheToolsOffTheLoop() throws {
        let dir = try makeTemporaryDirectory(self)
        let busctl = dir + "/busctl", rauc = dir + "/rauc"
        try writeFile(busctl, """
            #!/bin/sh
            # the bundle path is the last argument
            for last; do :; done
            case "$last" in *good*) echo '{"type":"ss","data":["boardwalk-test","9.9.9"]}' ;; *) echo "Call failed: not a bundle" >&2; exit 1 ;; esac
            """)
        try writeFile(rauc, """
            #!/bin/sh
            echo installing
            printf '  0%% Installing\\n 40%% Copying image to rootfs.1\\n'
            case "$2" in *good*) echo '100% Installing done.'; echo "Installing \\`$2' succeeded" ;; *) echo "LastError: Failed to mount bundle"; echo "Installing \\`$2' failed"; exit 1 ;; esac
            """)
        chmod(busctl, 0o755)
        chmod(rauc, 0o755)
        let updater = RaucUpdater(busctl: busctl, rauc: rauc, mountsPath: dir + "/none")
        func waitForEnd() -> UpdateState {
            let deadline = monotonicSeconds() + 20
            while updater.poll().isBusy && monotonicSeconds() < deadline { usleep(10_000) }
            return updater.poll()
        }
        XCTAssertEqual(updater.findBundles(), [])
        updater.inspect("/media/usb/good.raucb")
        XCTAssertEqual(waitForEnd(), .ready(bundle: "/media/usb/good.raucb", version: "9.9.9"))
        updater.install("/media/usb/good.raucb")
        XCTAssertEqual(waitForEnd(), .installed(bundle: "/media/usb/good.raucb", version: "9.9.9"))
        updater.inspect("/media/usb/bad.raucb")
        XCTAssertEqual(waitForEnd(), .failed(bundle: "/media/usb/bad.raucb", reason: "Call failed: not a bundle"))
        // A bundle whose install fails: RAUC's "LastError:" is the reason (not the
        // "Installing ... failed" line after it).
        try writeFile(busctl, "#!/bin/sh\necho '{\"type\":\"ss\",\"data\":[\"x\",\"1\"]}'\n")
        updater.inspect("/media/usb/broken.raucb")
        XCTAssertEqual(waitForEnd(), .ready(bundle: "/media/usb/broken.raucb", version: "1"))
        updater.install("/media/usb/broken.raucb")
        XCTAssertEqual(waitForEnd(), .failed(bundle: "/media/usb/broken.raucb", reason: "Failed to mount bundle"))
        // No rauc at all: said, not a crash.
        let missing = RaucUpdater(busctl: dir + "/nothing", rauc: dir + "/nothing")
        missing.inspect("/x.raucb")
        let deadline = monotonicSeconds() + 20
        while missing.poll().isBusy && monotonicSeconds() < deadline { usleep(10_000) }
        guard case .failed(_, let reason) = missing.poll() else { return XCTFail("\(missing.poll())") }
        XCTAssertTrue(reason.contains("No such file"), reason)
    }
}
