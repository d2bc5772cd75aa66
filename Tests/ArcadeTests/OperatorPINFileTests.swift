import Foundation
import TestSupport
import XCTest
@testable import Arcade
@testable import Platform

/// The operator PIN's hash on the state partition (`operator-pin`): it beats boardwalk.conf's,
/// boardwalk.conf's counts while it is missing, a broken one is a warning, the state's
/// `settings` still cannot set the PIN, and what `boardwalk-set-pin` writes is what the
/// kiosk reads.
final class OperatorPINFileTests: XCTestCase {
    private let confPIN = PINHash(pin: "2580", salt: Array("salt-for-the-conf".utf8), iterations: 10)
    private let statePIN = PINHash(pin: "482913", salt: Array("salt-for-the-state".utf8), iterations: 10)

    /// boardwalk.conf with the conf's PIN (or none), a state directory, and the settings as
    /// the kiosk starts with them.
    private func load(confHasPIN: Bool = true, prepare: (String, StateStore) throws -> Void) throws -> Config {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/boardwalk.conf", confHasPIN ? "[kiosk]\noperator_pin = \(confPIN.encoded)\n" : "[audio]\nvolume = 50\n")
        try Files.makeDirectories(dir + "/state")
        let options = CommandLineOptions.parse(["--config", dir + "/boardwalk.conf", "--state-dir", dir + "/state"])
        var config = Config.load(options)
        XCTAssertEqual(config.diagnostics, [])
        let store = StateStore(directory: dir + "/state", now: 0)
        defer { store.close(now: 1) }
        try prepare(dir + "/state", store)
        config.applyOperatorSettings(from: store, options: options)
        return config
    }

    func testTheStatePartitionsPINBeatsTheConfigs() throws {
        let config = try load { state, _ in try writeFile(state + "/operator-pin", statePIN.encoded + "\n") }
        XCTAssertEqual(config.settings.kiosk.operatorPIN, statePIN)
        XCTAssertEqual(config.diagnostics, [])
    }

    func testTheStatePartitionsPINWithNoneInTheConfig() throws {
        let config = try load(confHasPIN: false) { state, _ in try writeFile(state + "/operator-pin", statePIN.encoded) }
        XCTAssertEqual(config.settings.kiosk.operatorPIN, statePIN, "no newline at the end is fine too")
    }

    func testTheConfigsPINCountsWhileTheStateHasNone() throws {
        let config = try load { _, _ in }
        XCTAssertEqual(config.settings.kiosk.operatorPIN, confPIN)
        XCTAssertEqual(config.diagnostics, [], "no file is no problem: an install from before it")
    }

    func testABrokenFileIsAWarningAndTheConfigsPINStands() throws {
        for text in ["1234\n", "", statePIN.encoded + "\n" + confPIN.encoded + "\n",
                     String(repeating: " ", count: 2000) + statePIN.encoded] {
            let config = try load { state, _ in try writeFile(state + "/operator-pin", text) }
            XCTAssertEqual(config.settings.kiosk.operatorPIN, confPIN, text)
            XCTAssertEqual(config.diagnostics.count, 1, text)
            let line = "\(config.diagnostics.first!)"
            XCTAssertTrue(line.contains("operator-pin") && line.contains("using the PIN in boardwalk.conf"), line)
            XCTAssertFalse(line.contains("1234") || line.contains(String(statePIN.encoded.suffix(20))), "the file's text is not shown: \(line)")
        }
        let none = try load(confHasPIN: false) { state, _ in try writeFile(state + "/operator-pin", "0000") }
        XCTAssertNil(none.settings.kiosk.operatorPIN)
        XCTAssertTrue("\(none.diagnostics)".contains("the operator menu stays closed"), "\(none.diagnostics)")
    }

    func testAnUnreadableFileIsAWarning() throws {
        // A directory where the file should be: read(2) fails with EISDIR, even for root.
        let config = try load { state, _ in try Files.makeDirectories(state + "/operator-pin") }
        XCTAssertEqual(config.settings.kiosk.operatorPIN, confPIN)
        XCTAssertTrue("\(config.diagnostics)".contains("cannot be read"), "\(config.diagnostics)")
    }

    func testTheStateSettingsStillCannotSetThePIN() throws {
        let other = PINHash(pin: "1111", salt: Array("a-strangers-salt".utf8), iterations: 10)
        let withFile = try load { state, store in
            try writeFile(state + "/operator-pin", statePIN.encoded + "\n")
            store.setSetting("kiosk.operator_pin", other.encoded, now: 0)
        }
        XCTAssertEqual(withFile.settings.kiosk.operatorPIN, statePIN)
        let withoutFile = try load { _, store in store.setSetting("kiosk.operator_pin", other.encoded, now: 0) }
        XCTAssertEqual(withoutFile.settings.kiosk.operatorPIN, confPIN)
        XCTAssertTrue("\(withoutFile.diagnostics)".contains("not an operator setting"), "\(withoutFile.diagnostics)")
    }

    /// scripts/boardwalk-set-pin (set-pin.sh, the images, /usr/libexec/boardwalk/set-pin)
    /// writes a file the kiosk takes, root's and not writable by others, and leaves
    /// boardwalk.conf as it was.
    func testWhatTheSetPINProgramWritesIsWhatTheKioskReads() throws {
        var configPath = ""
        var written = ""
        let config = try load { state, _ in
            configPath = URL(fileURLWithPath: state).deletingLastPathComponent().path + "/boardwalk.conf"
            written = try Files.readText(configPath)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [sourceRoot + "/scripts/boardwalk-set-pin", state]
            process.environment = ["BW_PIN": "482913", "PATH": "/usr/bin:/bin"]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
        }
        let hash = try XCTUnwrap(config.settings.kiosk.operatorPIN)
        XCTAssertNotEqual(hash, confPIN)
        // The hash of 482913: worked out again by Python's hashlib, as 100,000 rounds of
        // this debug build's PBKDF2 take seconds (OperatorPINTests checks the two agree).
        let parts = hash.encoded.split(separator: "$").map(String.init)
        XCTAssertEqual(parts.count, 4)
        func python(_ pin: String) throws -> String {
            let process = Process()
            let out = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", "import hashlib, sys; print(hashlib.pbkdf2_hmac('sha256', sys.argv[1].encode(), "
                                 + "bytes.fromhex(sys.argv[2]), int(sys.argv[3])).hex())", pin, parts[2], parts[1]]
            process.standardOutput = out
            try process.run()
            process.waitUntilExit()
            return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmed
        }
        XCTAssertEqual(try python("482913"), parts[3])
        XCTAssertNotEqual(try python("2580"), parts[3])
        XCTAssertEqual(try Files.readText(configPath), written, "boardwalk.conf untouched")
        var info = stat()
        XCTAssertEqual(stat(URL(fileURLWithPath: configPath).deletingLastPathComponent().path + "/state/operator-pin", &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o644)
    }

    /// A reload (SIGHUP: set-pin's `systemctl reload`) hands the running kiosk the new PIN,
    /// and the pad's tries and lockout go on as they were.
    func testAReloadTakesTheNewPIN() throws {
        let (runner, store) = try makeRunner(self) { $0.kiosk.operatorPIN = self.confPIN }
        XCTAssertEqual(runner.kiosk.access.pin.verifierForComparison, confPIN)
        try writeFile(store.directory + "/operator-pin", statePIN.encoded + "\n")
        var fresh = Config(settings: runner.kiosk.settings, diagnostics: [], files: [])
        fresh.applyOperatorSettings(from: store, options: CommandLineOptions.parse([]))
        runner.kiosk.apply(fresh.settings)
        XCTAssertEqual(runner.kiosk.access.pin.verifierForComparison, statePIN)
    }
}
