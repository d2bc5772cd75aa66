import Foundation
import TestSupport
import XCTest
@testable import Arcade

final class ConfigTests: XCTestCase {
    func testGoodFileSetsEveryKind() throws {
        let dir = try makeTemporaryDirectory(self)
        let conf = dir + "/boardwalk.conf"
        try writeFile(conf, """
        # Boardwalk test config
          [display]
        connector = HDMI-A-1
        mode=800x480@60
        rotation = 270   # portrait cabinet
        format = rgb565
        brightness = 70

        [touch]
        device = /dev/input/event3
        calibration = 1.02, 0, -0.01  0 0.98 0.005
        swap_xy = yes
        invert_x = on
        invert_y = false
        [audio]
        pcm = "plughw:CARD=vc4hdmi"
        mixer_control = PCM
        period_frames = 2400
        buffer_periods = 4
        volume = 65
        sounds_dir = /srv/kiosk/sounds
        [KIOSK]
        language = zh
        enabled_games = 2048, memory
        idle_to_menu_seconds = 45
        menu_to_attract_seconds = 0
        operator_pin = pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$5f96a43ec085d7e812c2d0fc4b797107078dce886b2ddcb376e63c5b07cdbac0
        state_dir = /tmp/state
        data_dir = /opt/boardwalk
        """)
        var options = CommandLineOptions()
        options.configPath = conf
        let config = Config.load(options)
        XCTAssertEqual(config.diagnostics, [])
        XCTAssertEqual(config.files, [conf])
        let s = config.settings
        XCTAssertEqual(s.display.connector, "HDMI-A-1")
        XCTAssertEqual(s.display.mode, "800x480@60")
        XCTAssertEqual(s.display.rotation, .deg270)
        XCTAssertEqual(s.display.format, .rgb565)
        XCTAssertEqual(s.display.brightness, 70)
        XCTAssertEqual(s.touch.device, "/dev/input/event3")
        XCTAssertEqual(s.touch.calibration, [1.02, 0, -0.01, 0, 0.98, 0.005])
        XCTAssertTrue(s.touch.swapXY)
        XCTAssertTrue(s.touch.invertX)
        XCTAssertFalse(s.touch.invertY)
        XCTAssertEqual(s.audio.pcm, "plughw:CARD=vc4hdmi")
        XCTAssertEqual(s.audio.mixerControl, "PCM")
        XCTAssertEqual(s.audio.periodFrames, 2400)
        XCTAssertEqual(s.audio.bufferPeriods, 4)
        XCTAssertEqual(s.audio.volume, 65)
        XCTAssertEqual(s.audio.soundsDir, "/srv/kiosk/sounds")
        XCTAssertEqual(s.kiosk.language, .chinese)
        XCTAssertEqual(s.kiosk.enabledGames, ["2048", "memory"])
        XCTAssertEqual(s.kiosk.idleToMenuSeconds, 45)
        XCTAssertEqual(s.kiosk.menuToAttractSeconds, 0)
        XCTAssertEqual(s.kiosk.operatorPIN?.iterations, 1000)
        XCTAssertEqual(s.kiosk.operatorPIN?.matches("123456"), true, "the hash Python's hashlib made for 123456")
        XCTAssertEqual(s.value(for: "kiosk.operator_pin"), "(hashed)", "a printed config hides the hash")
        XCTAssertEqual(s.kiosk.stateDir, "/tmp/state")
        XCTAssertEqual(s.kiosk.dataDir, "/opt/boardwalk")
    }

    func testUnknownKeyAndBadValuesWarnWithFileAndLineAndKeepDefaults() throws {
        let dir = try makeTemporaryDirectory(self)
        let conf = dir + "/boardwalk.conf"
        try writeFile(conf, """
        [display]
        rotation = 45
        sparkle = yes
        [audio]
        volume = loud
        [touch]
        calibration = 1 0 0 0 1
        this line has no equals sign
        [games]
        speed = 3
        [kiosk]
        language = fr
        enabled_games = 2048, tetris
        operator_pin = 2468
        idle_to_menu_seconds = 2
        volume_outside = 1
        """)
        var options = CommandLineOptions()
        options.configPath = conf
        var config: Config!
        let logged = capturingLog {
            config = Config.load(options)
            config.logDiagnostics()
        }
        let defaults = Settings()
        XCTAssertEqual(config.settings, defaults, "every bad line leaves the default in place")
        let byLine = Dictionary(grouping: config.diagnostics, by: { $0.line ?? 0 })
        XCTAssertTrue(byLine[2]?.first?.message.contains("must be 0, 90, 180 or 270; using 0") == true, "\(config.diagnostics)")
        XCTAssertTrue(byLine[3]?.first?.message.contains("unknown key 'sparkle' in [display]") == true)
        XCTAssertTrue(byLine[5]?.first?.message.contains("volume = loud") == true)
        XCTAssertTrue(byLine[7]?.first?.message.contains("6 numbers") == true)
        XCTAssertTrue(byLine[8]?.first?.message.contains("expected key = value") == true)
        XCTAssertTrue(byLine[10]?.first?.message.contains("unknown section [games]") == true)
        XCTAssertTrue(byLine[12]?.first?.message.contains("en or zh") == true)
        XCTAssertTrue(byLine[13]?.first?.message.contains("tetris") == true)
        XCTAssertTrue(byLine[14]?.first?.message.contains("stored hashed, never as digits") == true, "\(config.diagnostics)")
        XCTAssertFalse(config.diagnostics.contains { $0.message.contains("2468") }, "the journal never shows a PIN")
        XCTAssertTrue(byLine[15]?.first?.message.contains("0 (never) or 5") == true)
        XCTAssertTrue(byLine[16]?.first?.message.contains("unknown key 'volume_outside' in [kiosk]") == true)
        XCTAssertEqual(config.diagnostics.count, 11)
        XCTAssertTrue(config.diagnostics.allSatisfy { $0.origin == conf && $0.level == .warning })
        XCTAssertEqual(logged.count, 11)
        XCTAssertTrue(logged.allSatisfy { $0.hasPrefix("<4>config: \(conf):") }, "\(logged)")
        XCTAssertFalse(logged.contains { $0.contains("2468") }, "the journal never shows a PIN")
    }

    func testTheFleetSectionIsTheUpdatersAndSaysNothing() throws {
        let dir = try makeTemporaryDirectory(self)
        let conf = dir + "/boardwalk.conf"
        try writeFile(conf, "[fleet]\nserver = http://fleet.example:8080\ntoken = s3cret-token\n[audio]\nvolume = 40\n")
        var options = CommandLineOptions()
        options.configPath = conf
        let config = Config.load(options)
        XCTAssertTrue(config.diagnostics.isEmpty, "no unknown-section warning, and the token never reaches the journal: \(config.diagnostics)")
        XCTAssertEqual(config.settings.audio.volume, 40)
    }

    func testMissingFileIsANoticeAndDefaults() {
        var options = CommandLineOptions()
        options.configPath = "/nonexistent/boardwalk.conf"
        let config = Config.load(options)
        XCTAssertEqual(config.settings, Settings())
        XCTAssertEqual(config.diagnostics.count, 1)
        XCTAssertEqual(config.diagnostics.first?.level, .notice)
        XCTAssertEqual(config.diagnostics.first?.description, "/nonexistent/boardwalk.conf: not found; using defaults")
        XCTAssertEqual(config.files, [])
    }

    func testLayersBoardThenFileThenFlags() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/data/boards/pi7.conf", """
        [display]
        rotation = 180
        mode = 800x480
        [touch]
        invert_x = true
        [audio]
        period_frames = 2400
        mixer_control = PCM
        [image]
        cmdline = console=tty3 quiet
        [metrics]
        exporter_port = 9100
        exporter_interface = end0
        exporter_address = 192.0.2.7
        exporter_password_file = exporter.passwd
        """)
        try writeFile(dir + "/boardwalk.conf", """
        [kiosk]
        board = pi7
        data_dir = \(dir)/data
        language = zh
        [audio]
        period_frames = 1200
        """)
        let options = CommandLineOptions.parse([
            "--config", dir + "/boardwalk.conf", "--rotation=90", "--size", "1024x600",
            "--state-dir", dir + "/state", "--set", "audio.volume=30", "--headless", "--set=kiosk.language=en",
        ])
        XCTAssertEqual(options.remaining, ["--headless"])
        let config = Config.load(options)
        XCTAssertEqual(config.diagnostics, [])
        XCTAssertEqual(config.files, [dir + "/data/boards/pi7.conf", dir + "/boardwalk.conf"])
        let s = config.settings
        XCTAssertEqual(s.display.rotation, .deg90, "flag beats board")
        XCTAssertEqual(s.display.mode, "1024x600", "--size beats board")
        XCTAssertTrue(s.touch.invertX, "board value kept where nothing overrides it")
        XCTAssertEqual(s.audio.periodFrames, 1200, "file beats board")
        XCTAssertEqual(s.audio.mixerControl, "PCM")
        XCTAssertEqual(s.audio.volume, 30)
        XCTAssertEqual(s.kiosk.language, .english, "--set beats file")
        XCTAssertEqual(s.kiosk.stateDir, dir + "/state")
        XCTAssertEqual(s.kiosk.board, "pi7")
        XCTAssertEqual(s.metrics.exporterPort, 9100, "the exporter's port is the kiosk's too (its metrics file)")
    }

    func testBoardFlagAndBadFlags() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/boards/tiny/board.conf", "[display]\nformat = rgb565\n")
        let options = CommandLineOptions.parse([
            "--config", dir + "/none.conf", "--data-dir", dir, "--board", "tiny",
            "--rotation", "33", "--set", "novalue", "--set", "display.bogus=1", "--language",
        ])
        let config = Config.load(options)
        XCTAssertEqual(config.settings.display.format, .rgb565)
        XCTAssertEqual(config.settings.display.rotation, .deg0)
        let messages = config.diagnostics.map(\.description)
        XCTAssertTrue(messages.contains("command line: --language needs a value; ignored"), "\(messages)")
        XCTAssertTrue(messages.contains("command line: --set novalue: expected section.key=value; ignored"))
        XCTAssertTrue(messages.contains("command line: display.rotation=33: must be 0, 90, 180 or 270; using 0"))
        XCTAssertTrue(messages.contains("command line: unknown key 'bogus' in [display]; ignored"))
        XCTAssertTrue(messages.contains("\(dir)/none.conf: not found; using defaults"))
    }

    func testMissingBoardProfileWarns() {
        let options = CommandLineOptions.parse(["--config", "/nonexistent", "--board", "nosuch", "--data-dir", "/nonexistent-data"])
        let config = Config.load(options)
        XCTAssertTrue(config.diagnostics.contains { $0.level == .warning && $0.message.contains("board profile 'nosuch' not found") })
    }

    /// A copy of the system branch's boards/qemu-x86_64.conf: a board profile must load
    /// without a single warning.
    func testVirtualBoardProfileLoadsCleanly() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/boards/qemu-x86_64.conf", """
        # The virtual board
        [board]
        name = qemu-x86_64
        description = QEMU x86_64 virtual board (virtio-gpu, virtio-tablet, AC97)
        arch = amd64

        [display]
        connector = Virtual-1
        mode = 1280x800
        rotation = 0
        format = xrgb8888

        [touch]
        device = QEMU Virtio Tablet
        calibration = 1 0 0 0 1 0
        swap_xy = false
        invert_x = false
        invert_y = false

        [audio]
        pcm = default
        mixer_control = Master, PCM
        period_frames = 480
        buffer_periods = 4

        [boot]
        cmdline = console=ttyS0,115200 quiet loglevel=0 logo.nologo
        """)
        let config = Config.load(CommandLineOptions.parse(["--config", dir + "/none", "--data-dir", dir, "--board", "qemu-x86_64"]))
        XCTAssertEqual(config.diagnostics.filter { $0.level == .warning }, [])
        XCTAssertEqual(config.settings.display.connector, "Virtual-1")
        XCTAssertEqual(config.settings.display.mode, "1280x800")
        XCTAssertEqual(config.settings.touch.device, "QEMU Virtio Tablet")
        XCTAssertEqual(config.settings.audio.mixerControls, ["Master", "PCM"])
        XCTAssertEqual(config.settings.audio.mixerControl, "Master")
        XCTAssertEqual(config.settings.audio.bufferPeriods, 4)
    }

    /// Every board profile in the source tree loads without warnings (keeps the board
    /// files and the kiosk's keys in step).
    func testEveryBoardProfileInTheTreeLoadsCleanly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let boards = (try? FileManager.default.contentsOfDirectory(atPath: root + "/boards")) ?? []
        for name in boards where name.hasSuffix(".conf") {
            let options = CommandLineOptions.parse(["--config", "/nonexistent", "--board", root + "/boards/" + name])
            let warnings = Config.load(options).diagnostics.filter { $0.level == .warning }
            XCTAssertEqual(warnings, [], name)
        }
    }

    func testOperatorSettingsSitBetweenFilesAndCommandLine() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/boardwalk.conf", "[audio]\nvolume = 70\n[display]\nrotation = 90\n")
        let options = CommandLineOptions.parse(["--config", dir + "/boardwalk.conf", "--rotation", "180"])
        var config = Config.load(options)
        let store = StateStore(directory: dir + "/state", now: 0)
        store.setSetting("audio.volume", "35", now: 0)
        store.setSetting("display.rotation", "270", now: 0)
        config.applyOperatorSettings(from: store, options: options)
        XCTAssertEqual(config.settings.audio.volume, 35, "operator beats the file")
        XCTAssertEqual(config.settings.display.rotation, .deg180, "command line beats the operator")
        XCTAssertEqual(config.diagnostics, [])
        store.close(now: 1)
    }

    func testCommentsQuotesAndCRLF() {
        let parsed = ConfigFile.parse("[audio]\r\npcm = \"hw:0,0\"  # the jack\r\nmixer_control=Head#phone\r\n; not a comment\n", origin: "t")
        XCTAssertEqual(parsed.entries.map(\.key), ["audio.pcm", "audio.mixer_control"])
        XCTAssertEqual(parsed.entries.map(\.value), ["hw:0,0", "Head#phone"])
        XCTAssertEqual(parsed.diagnostics.map(\.line), [4])
    }

    func testRenderedRoundTrips() {
        var settings = Settings()
        XCTAssertNil(settings.apply(key: "touch.calibration", value: "0 1 0 -1 0 1"))
        XCTAssertNil(settings.apply(key: "display.mode", value: "480x320"))
        XCTAssertNil(settings.apply(key: "kiosk.enabled_games", value: "memory 2048 memory"))
        XCTAssertEqual(settings.kiosk.enabledGames, ["memory", "2048"])
        let text = settings.rendered()
        let parsed = ConfigFile.parse(text, origin: "rendered")
        XCTAssertEqual(parsed.diagnostics, [])
        var again = Settings()
        for entry in parsed.entries { XCTAssertNil(Config.apply(entry, to: &again)) }
        XCTAssertEqual(again, settings)
        XCTAssertEqual(Settings.keys.count, parsed.entries.count)
    }

    func testZombieDifficultyIsArcadeUnlessTheOperatorSaysOtherwise() {
        var settings = Settings()
        XCTAssertEqual(settings.zombies.difficulty, .arcade)
        XCTAssertEqual(settings.value(for: "zombies.difficulty"), "arcade")
        XCTAssertNil(settings.apply(key: "zombies.difficulty", value: "gentle"))
        XCTAssertEqual(settings.zombies.difficulty, .gentle)
        XCTAssertEqual(settings.apply(key: "zombies.difficulty", value: "nightmare"), "must be gentle, classic, arcade")
        XCTAssertEqual(settings.zombies.difficulty, .gentle, "a bad value keeps the earlier one")
        XCTAssertTrue(settings.rendered().contains("[zombies]\ndifficulty = gentle\n"))
    }
}
