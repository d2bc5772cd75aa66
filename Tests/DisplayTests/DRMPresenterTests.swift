import XCTest
import CopyKernels
@testable import Display
import Graphics
import Platform

final class ModeChoiceTests: XCTestCase {
    let config = DisplayConfig(ttyPath: nil, watchHotplug: false)

    func testRefreshIntervalComesFromTheModesTimings() {
        var info = DisplayMode(width: 1920, height: 1080).info
        (info.clock, info.htotal, info.vtotal) = (148_500, 2200, 1125)
        XCTAssertEqual(DisplayMode(info).refreshInterval, 1.0 / 60, accuracy: 1e-9)
        info.clock = 148_352  // the 59.94 Hz variant: vrefresh still says 60
        XCTAssertEqual(DisplayMode(info).refreshHz, DisplayMode(width: 1920, height: 1080).refreshHz)
        XCTAssertEqual(DisplayMode(info).refreshInterval, 2200.0 * 1125 / 148_352_000, accuracy: 1e-12)
        XCTAssertEqual(DisplayMode(width: 800, height: 480, refreshHz: 50).refreshInterval, 0.02, accuracy: 1e-12,
                       "no timings: the rounded rate")
    }

    func testPreferredModeWins() throws {
        let c = hdmi(modes: [DisplayMode(width: 1920, height: 1080), DisplayMode(width: 1280, height: 800, isPreferred: true)])
        let choice = try chooseOutput([c], config: config, path: "card0")
        XCTAssertEqual(choice.mode.description, "1280x800@60")
        XCTAssertEqual(choice.reason, "preferred")
    }

    func testLargestWithoutPreferred() throws {
        let c = hdmi(modes: [DisplayMode(width: 800, height: 480), DisplayMode(width: 1920, height: 1080, refreshHz: 30),
                             DisplayMode(width: 1920, height: 1080, refreshHz: 60), DisplayMode(width: 1280, height: 720)])
        let choice = try chooseOutput([c], config: config, path: "card0")
        XCTAssertEqual(choice.mode.description, "1920x1080@60")
        XCTAssertEqual(choice.reason, "largest")
    }

    func testConfiguredModeAndRefresh() throws {
        let c = hdmi(modes: [DisplayMode(width: 1920, height: 1080, isPreferred: true),
                             DisplayMode(width: 1280, height: 720, refreshHz: 60), DisplayMode(width: 1280, height: 720, refreshHz: 50)])
        var cfg = config
        cfg.mode = "1280x720"
        XCTAssertEqual(try chooseOutput([c], config: cfg, path: "card0").mode.description, "1280x720@60")
        cfg.mode = "1280x720@50"
        let choice = try chooseOutput([c], config: cfg, path: "card0")
        XCTAssertEqual(choice.mode.description, "1280x720@50")
        XCTAssertEqual(choice.reason, "configured")
        cfg.mode = "800x600"
        XCTAssertThrowsError(try chooseOutput([c], config: cfg, path: "card0")) { error in
            XCTAssertEqual("\(error)", "display: mode 800x600 not offered by HDMI-A-1 (offered: 1920x1080@60, 1280x720@60, 1280x720@50)")
        }
        cfg.mode = "big"
        XCTAssertThrowsError(try chooseOutput([c], config: cfg, path: "card0")) { error in
            XCTAssertEqual("\(error)", "display: mode \"big\" is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ")
        }
    }

    func testConfiguredConnectorWins() throws {
        let a = hdmi(id: 1, index: 1)
        let b = hdmi(id: 2, index: 2, modes: [DisplayMode(width: 640, height: 480)])
        var cfg = config
        cfg.connector = "HDMI-A-2"
        XCTAssertEqual(try chooseOutput([a, b], config: cfg, path: "card0").connector.name, "HDMI-A-2")
        cfg.connector = "DSI-1"
        XCTAssertThrowsError(try chooseOutput([a, b], config: cfg, path: "/dev/dri/card0")) { error in
            XCTAssertEqual("\(error)", "display: connector DSI-1 not found on /dev/dri/card0 (available: HDMI-A-1, HDMI-A-2)")
        }
    }

    func testUnknownStateConnectorIsAccepted() throws {
        let off = hdmi(.disconnected, modes: [])
        let composite = ConnectorInfo(id: 2, name: "Composite-1", state: .unknown,
                                      modes: [DisplayMode(width: 720, height: 576, refreshHz: 50)], encoders: [10])
        XCTAssertEqual(try chooseOutput([off, composite], config: config, path: "card0").connector.name, "Composite-1")
        // A connected one is still better than an unknown one.
        let on = hdmi(id: 3, index: 2)
        XCTAssertEqual(try chooseOutput([composite, on], config: config, path: "card0").connector.name, "HDMI-A-2")
    }
}

final class DRMPresenterTests: XCTestCase {
    let config = DisplayConfig(ttyPath: nil, watchHotplug: false)

    func testCardFoundByCapabilityAndConfiguredPathWins() throws {
        let render = SimulatedCard(path: "/dev/dri/card0", connectors: [])
        render.dumbBuffers = false
        let good = SimulatedCard(path: "/dev/dri/card1", connectors: [hdmi()])
        let other = SimulatedCard(path: "/dev/dri/card2", connectors: [hdmi(modes: [DisplayMode(width: 800, height: 480, isPreferred: true)])])
        let system = SimulatedSystem([render, good, other])
        let p = try DRMPresenter(config: config, system: system)
        XCTAssertEqual(p.device.path, "/dev/dri/card1")
        XCTAssertEqual(p.width, 1280)
        XCTAssertEqual(p.height, 800)
        XCTAssertTrue(render.closed)
        var cfg = config
        cfg.cardPath = "/dev/dri/card2"
        let q = try DRMPresenter(config: cfg, system: system)
        XCTAssertEqual(q.device.path, "/dev/dri/card2")
        XCTAssertEqual(q.width, 800)
    }

    func testErrorMessages() {
        func message(_ system: SimulatedSystem, _ cfg: DisplayConfig? = nil) -> String {
            do {
                _ = try DRMPresenter(config: cfg ?? config, system: system)
                return "no error"
            } catch {
                XCTAssertFalse(error.description.contains("\n"))
                return error.description
            }
        }
        XCTAssertEqual(message(SimulatedSystem([])),
                       "display: no DRM card that can show a picture (no /dev/dri/card*); is the display driver loaded?")
        XCTAssertEqual(message(SimulatedSystem([], openErrors: ["/dev/dri/card0": EACCES])),
                       "display: permission denied opening /dev/dri/card0; run as a member of the 'video' group")
        XCTAssertEqual(message(SimulatedSystem([SimulatedCard(connectors: [hdmi(.disconnected, modes: [])])])),
                       "display: no connected display on /dev/dri/card0 (HDMI-A-1 disconnected); plug in a screen or configure the connector")
        let held = SimulatedCard(connectors: [hdmi()])
        held.master = false
        held.masterHeldElsewhere = true
        XCTAssertEqual(message(SimulatedSystem([held])),
                       "display: /dev/dri/card0 is in use: another process (a display server, another kiosk) holds DRM master")
        let render = SimulatedCard(connectors: [hdmi()])
        render.dumbBuffers = false
        XCTAssertEqual(message(SimulatedSystem([render])),
                       "display: /dev/dri/card0 cannot allocate dumb buffers (a render-only device?)")
        var cfg = config
        cfg.cardPath = "/dev/dri/card9"
        XCTAssertEqual(message(SimulatedSystem([SimulatedCard(connectors: [hdmi()])]), cfg),
                       "display: no DRM card that can show a picture (/dev/dri/card9); is the display driver loaded?")
        // Permission trouble outranks a card without a screen.
        XCTAssertEqual(message(SimulatedSystem([SimulatedCard(path: "/dev/dri/card1", connectors: [])],
                                               openErrors: ["/dev/dri/card0": EPERM])),
                       "display: permission denied opening /dev/dri/card0; run as a member of the 'video' group")
    }

    func testPanelPowerThroughDPMSStopsFlipsUntilOn() throws {
        let card = SimulatedCard(connectors: [hdmi(modes: [DisplayMode(width: 64, height: 48, isPreferred: true)])])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        let connector = try XCTUnwrap(card.connectors.first?.id)
        XCTAssertTrue(p.setPanelPower(false))
        XCTAssertEqual(card.power[connector], false)
        XCTAssertFalse(p.isReadyForFrame, "no flips to a sleeping panel")
        XCTAssertTrue(p.setPanelPower(true))
        XCTAssertEqual(card.power[connector], true)
        XCTAssertTrue(p.isReadyForFrame)
        XCTAssertTrue(p.needsFullRedraw, "the whole picture again")
        card.dpms = false
        XCTAssertFalse(p.setPanelPower(false), "a driver without DPMS says no")
        XCTAssertTrue(p.isReadyForFrame)
    }

    func testPreferredDepth16ChoosesRGB565() throws {
        let card = SimulatedCard(connectors: [hdmi(modes: [DisplayMode(width: 480, height: 320, isPreferred: true)])])
        card.preferredDepth = 16
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        XCTAssertEqual(p.format, .rgb565)
        XCTAssertTrue(card.calls.contains("addFB 100 depth 16 bpp 16"))
    }

    /// Frame N copies its own damage plus frame N-1's (the back buffer is one frame old),
    /// and nothing else.
    func testAFlipsVblankTimeIsWhenTheFrameWasShown() throws {
        let card = SimulatedCard(connectors: [hdmi(modes: [DisplayMode(width: 64, height: 48, isPreferred: true)])])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        XCTAssertNil(p.lastShownAt, "the modeset's picture has no flip time")
        let shadow = Surface(width: 64, height: 48, format: .xrgb8888)
        try p.present(shadow, damage: DamageRegion(PixelRect(0, 0, 64, 48)))
        try p.handleReadable()
        XCTAssertNil(p.lastShownAt, "not shown before its vblank")
        card.vblank(at: 1234.5)
        try p.handleReadable()
        XCTAssertEqual(p.lastShownAt, 1234.5)
    }

    func testTwoBufferDamageCopy() throws {
        let card = SimulatedCard(connectors: [hdmi(modes: [DisplayMode(width: 64, height: 48, isPreferred: true)])])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        XCTAssertEqual(card.calls.filter { $0.hasPrefix("createDumb") }.count, 2)
        XCTAssertEqual(card.scannedOut, 100)
        let shadow = Surface(width: 64, height: 48, format: .xrgb8888)
        shadow.clear(to: .black)
        func frame(_ damage: DamageRegion) throws {
            XCTAssertTrue(p.isReadyForFrame)
            try p.present(shadow, damage: damage)
            XCTAssertFalse(p.isReadyForFrame)
            card.vblank()
            try p.handleReadable()
            XCTAssertTrue(p.isReadyForFrame)
        }
        func panel(_ fb: UInt32) -> Surface { card.surface(framebuffer: fb, width: 64, height: 48, format: .xrgb8888) }
        // Two full frames: both buffers hold the black shadow (their first write is whole).
        try frame(DamageRegion(PixelRect(0, 0, 1, 1)))
        XCTAssertEqual(card.scannedOut, 101)
        try frame(DamageRegion(PixelRect(0, 0, 1, 1)))
        XCTAssertEqual(card.scannedOut, 100)
        XCTAssertFalse(p.needsFullRedraw)

        let a = PixelRect(2, 2, 8, 8), b = PixelRect(30, 20, 6, 6), c = PixelRect(50, 40, 4, 4)
        shadow.clear(a, to: Color(hex: 0xFF0000))
        try frame(DamageRegion(a))                 // frame N-1 -> buffer 101
        XCTAssertEqual(card.scannedOut, 101)
        shadow.clear(b, to: Color(hex: 0x00FF00))
        shadow.clear(c, to: Color(hex: 0x0000FF))  // drawn but not reported as damage
        try frame(DamageRegion(b))                 // frame N -> buffer 100
        XCTAssertEqual(card.scannedOut, 100)
        let shown = panel(100)
        XCTAssertEqual(shown.pixel(x: 3, y: 3), Color(hex: 0xFF0000), "frame N-1's damage copied too")
        XCTAssertEqual(shown.pixel(x: 31, y: 21), Color(hex: 0x00FF00), "frame N's damage copied")
        XCTAssertEqual(shown.pixel(x: 51, y: 41), .black, "undamaged pixels untouched")
        XCTAssertEqual(panel(101).pixel(x: 31, y: 21), .black, "the other buffer got only its own frames")

        // Damage that arrives while a flip is pending waits; nothing is lost.
        let d = PixelRect(10, 30, 5, 5), e = PixelRect(40, 5, 5, 5)
        shadow.clear(d, to: Color(hex: 0xFFFFFF))
        try p.present(shadow, damage: DamageRegion(d))   // flips (ready)
        shadow.clear(e, to: Color(hex: 0x808080))
        let flips = card.calls.filter { $0.hasPrefix("flip") }.count
        try p.present(shadow, damage: DamageRegion(e))   // pending: kept, no flip
        XCTAssertEqual(card.calls.filter { $0.hasPrefix("flip") }.count, flips)
        card.vblank()
        try p.handleReadable()
        try p.present(shadow, damage: DamageRegion())    // copies the kept damage
        card.vblank()
        try p.handleReadable()
        let now = panel(card.scannedOut)
        XCTAssertEqual(now.pixel(x: 11, y: 31), Color(hex: 0xFFFFFF))
        XCTAssertEqual(now.pixel(x: 41, y: 6), Color(hex: 0x808080))
        // Nothing damaged: no flip, no wake-up.
        let before = card.calls.count
        try p.present(shadow, damage: DamageRegion())
        XCTAssertEqual(card.calls.count, before)
        XCTAssertThrowsError(try p.present(Surface(width: 48, height: 64, format: .xrgb8888), damage: DamageRegion()))
    }

    func testRotatedPresenterIsPortrait() throws {
        let card = SimulatedCard(connectors: [hdmi()])
        var cfg = config
        cfg.rotation = .deg90
        let p = try DRMPresenter(config: cfg, system: SimulatedSystem([card]))
        XCTAssertEqual(p.width, 800)
        XCTAssertEqual(p.height, 1280)
        let shadow = Surface(width: 800, height: 1280, format: .xrgb8888)
        shadow.clear(PixelRect(0, 0, 10, 10), to: Color(hex: 0x00FF00))
        try p.present(shadow, damage: DamageRegion(shadow.bounds))
        card.vblank()
        try p.handleReadable()
        // The top-left of the picture is the top-right of a clockwise-turned panel.
        let panel = card.surface(framebuffer: card.scannedOut, width: 1280, height: 800, format: .xrgb8888)
        XCTAssertEqual(panel.pixel(x: 1275, y: 5), Color(hex: 0x00FF00))
        XCTAssertEqual(panel.pixel(x: 5, y: 5), .black)
    }

    func testTeardownRestoresCRTCAndFreesInReverse() throws {
        let card = SimulatedCard(connectors: [hdmi()])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        card.calls.removeAll()
        p.shutdown()
        p.shutdown()
        XCTAssertEqual(card.calls.first, "setCrtc 40 fb 7 1024x768@60")
        XCTAssertEqual(Array(card.calls.dropFirst()),
                       ["rmFB 100", "unmap 1", "destroyDumb 1", "rmFB 101", "unmap 2", "destroyDumb 2", "close"])
        XCTAssertFalse(p.isReadyForFrame)
    }

    func testVTReleaseAndAcquire() throws {
        let card = SimulatedCard(connectors: [hdmi(modes: [DisplayMode(width: 32, height: 32, isPreferred: true)])])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        let shadow = Surface(width: 32, height: 32, format: .xrgb8888)
        try p.present(shadow, damage: DamageRegion(shadow.bounds))
        card.vblank()
        try p.handleReadable()
        XCTAssertFalse(p.needsFullRedraw)
        p.handleVTSignal(VirtualTerminal.releaseSignal)
        XCTAssertEqual(card.calls.last, "dropMaster")
        XCTAssertFalse(p.isReadyForFrame)
        let flips = card.calls.filter { $0.hasPrefix("flip") }.count
        try p.present(shadow, damage: DamageRegion(PixelRect(0, 0, 4, 4)))
        XCTAssertEqual(card.calls.filter { $0.hasPrefix("flip") }.count, flips, "no drawing while switched away")
        card.calls.removeAll()
        p.handleVTSignal(VirtualTerminal.acquireSignal)
        XCTAssertEqual(card.calls, ["setMaster", "setCrtc 40 fb 101 32x32@60"])
        XCTAssertTrue(p.isReadyForFrame)
        XCTAssertTrue(p.needsFullRedraw)
        try p.present(shadow, damage: DamageRegion(shadow.bounds))
        XCTAssertFalse(p.needsFullRedraw)
    }

    func testFlipLostToVTSwitchKeepsDamage() throws {
        let card = SimulatedCard(connectors: [hdmi(modes: [DisplayMode(width: 16, height: 16, isPreferred: true)])])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        let shadow = Surface(width: 16, height: 16, format: .xrgb8888)
        card.failPageFlip = EACCES
        XCTAssertNoThrow(try p.present(shadow, damage: DamageRegion(shadow.bounds)))
        XCTAssertTrue(p.isReadyForFrame)
        card.failPageFlip = EIO
        XCTAssertThrowsError(try p.present(shadow, damage: DamageRegion(shadow.bounds))) { error in
            XCTAssertEqual("\(error)", "display: drmModePageFlip /dev/dri/card0: Input/output error (errno 5)")
        }
    }

    func testHotplugReprobe() throws {
        let card = SimulatedCard(connectors: [hdmi()])
        let p = try DRMPresenter(config: config, system: SimulatedSystem([card]))
        let shadow = Surface(width: 1280, height: 800, format: .xrgb8888)
        try p.present(shadow, damage: DamageRegion(shadow.bounds))
        card.vblank()
        try p.handleReadable()
        // Same monitor back after a power cycle: modeset the same buffers.
        card.calls.removeAll()
        try p.reprobe()
        XCTAssertEqual(card.calls, ["setCrtc 40 fb 101 1280x800@60"])
        // Unplugged: wait quietly.
        card.connectors = [hdmi(.disconnected, modes: [])]
        card.calls.removeAll()
        try p.reprobe()
        XCTAssertEqual(card.calls, [])
        // A different monitor: new buffers at the new size, full redraw.
        card.connectors = [hdmi(modes: [DisplayMode(width: 1920, height: 1080, isPreferred: true)])]
        try p.reprobe()
        XCTAssertEqual(p.width, 1920)
        XCTAssertEqual(p.height, 1080)
        XCTAssertTrue(p.needsFullRedraw)
        XCTAssertEqual(card.calls, ["rmFB 100", "unmap 1", "destroyDumb 1", "rmFB 101", "unmap 2", "destroyDumb 2",
                                    "createDumb 1920x1080x32", "map 3", "addFB 102 depth 24 bpp 32",
                                    "createDumb 1920x1080x32", "map 4", "addFB 103 depth 24 bpp 32",
                                    "setCrtc 40 fb 102 1920x1080@60"])
        XCTAssertThrowsError(try p.present(shadow, damage: DamageRegion(shadow.bounds)))
        try p.present(Surface(width: 1920, height: 1080, format: .xrgb8888), damage: DamageRegion(PixelRect(0, 0, 1, 1)))
    }

    func testUeventParsing() {
        func message(_ fields: [String]) -> [UInt8] { fields.flatMap { Array($0.utf8) + [0] } }
        XCTAssertTrue(DRMHotplug.isDRMHotplug(message([
            "change@/devices/pci0000:00/0000:00:02.0/drm/card0", "ACTION=change",
            "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0", "SUBSYSTEM=drm", "HOTPLUG=1",
            "DEVNAME=dri/card0", "SEQNUM=1234"])))
        XCTAssertFalse(DRMHotplug.isDRMHotplug(message(["add@/devices/x/input/input5", "ACTION=add", "SUBSYSTEM=input"])))
        XCTAssertFalse(DRMHotplug.isDRMHotplug(message(["change@/devices/x/drm/card0", "ACTION=change", "SUBSYSTEM=drm"])))
        XCTAssertFalse(DRMHotplug.isDRMHotplug([UInt8]()))
        // What `echo change > /sys/class/drm/card0/uevent` sends.
        XCTAssertTrue(DRMHotplug.isDRMHotplug(message([
            "change@/devices/pci0000:00/0000:00:02.0/drm/card0", "ACTION=change", "SUBSYSTEM=drm",
            "SYNTH_UUID=0", "DEVNAME=dri/card0"])))
    }

    func testBenchRuns() {
        let results = measureCopyOut(iterations: 1)
        // 1280x800 full and damaged, 1920x1080 full: upright xrgb8888, rgb565 (kernel and
        // pixman), and 90/270 into both formats; the turned whole frames again on the
        // portable path where the best one is another (AVX2).
        let portableRows = bw_copy_select(Int32(BW_COPY_BEST)) == Int32(BW_COPY_PORTABLE) ? 0 : 8
        XCTAssertEqual(results.count, 21 + portableRows)
        XCTAssertEqual(results.filter { $0.name.hasSuffix(" portable path") }.count, portableRows)
        XCTAssertEqual(Set(results.map(\.name)).count, results.count)
        XCTAssertTrue(results.allSatisfy { $0.copyOutSeconds > 0 && $0.memcpySeconds > 0 && $0.memcpyDestinationSeconds > 0 })
        XCTAssertTrue(results.contains { $0.name == "1280x800 typical damaged frame rgb565 rotated 270" })
    }
}
