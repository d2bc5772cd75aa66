import Graphics
import Input
import Platform
import TestSupport
import UI
import XCTest
@testable import Arcade

/// Screen care (dim, off, wake, pixel shift), opening hours (across midnight, per weekday,
/// an unset clock) and the volume cap and attract volume.
final class ScreenCareTests: XCTestCase {
    private func at(_ weekday: Int, _ hour: Int, _ minute: Int = 0) -> WallClock {
        WallClock(year: 2026, month: 12, day: 1, weekday: weekday, hour: hour, minute: minute)
    }

    func testOpeningHoursParse() throws {
        XCTAssertEqual(OpeningHours(parsing: "always"), .always)
        let day = try XCTUnwrap(OpeningHours(parsing: "09:00-21:00"))
        XCTAssertTrue(day.isOpen(at: at(2, 9)))
        XCTAssertTrue(day.isOpen(at: at(2, 20, 59)))
        XCTAssertFalse(day.isOpen(at: at(2, 21)))
        XCTAssertFalse(day.isOpen(at: at(2, 8, 59)))
        for bad in ["", "9-21", "09:00-09:00", "25:00-26:00", "mon 09:00", "funday 09:00-10:00", "09:00-21:00 extra words"] {
            XCTAssertNil(OpeningHours(parsing: bad), bad)
        }
        var s = Settings()
        XCTAssertNil(s.apply(key: "kiosk.hours", value: "mon-fri 09:00-21:00, sat 10:00-23:00, sun closed"))
        XCTAssertEqual(s.value(for: "kiosk.hours"), "mon-fri 09:00-21:00, sat 10:00-23:00, sun closed")
        XCTAssertNotNil(s.apply(key: "kiosk.hours", value: "nine to five"))
    }

    func testHoursAcrossMidnightAndPerWeekday() throws {
        let late = try XCTUnwrap(OpeningHours(parsing: "18:00-02:00"))
        XCTAssertTrue(late.isOpen(at: at(5, 23, 30)))
        XCTAssertTrue(late.isOpen(at: at(6, 1, 59)), "the small hours belong to the evening before")
        XCTAssertFalse(late.isOpen(at: at(6, 2)))
        XCTAssertFalse(late.isOpen(at: at(6, 12)))
        let week = try XCTUnwrap(OpeningHours(parsing: "mon-fri 09:00-17:00, sat 20:00-03:00, sun closed"))
        XCTAssertTrue(week.isOpen(at: at(1, 10)))
        XCTAssertTrue(week.isOpen(at: at(5, 16)))
        XCTAssertFalse(week.isOpen(at: at(6, 10)), "Saturday opens in the evening")
        XCTAssertTrue(week.isOpen(at: at(6, 23)))
        XCTAssertTrue(week.isOpen(at: at(0, 2, 30)), "Saturday night runs into Sunday")
        XCTAssertFalse(week.isOpen(at: at(0, 3)))
        XCTAssertFalse(week.isOpen(at: at(0, 12)), "Sunday closed")
        let weekend = try XCTUnwrap(OpeningHours(parsing: "sat+sun 10:00-18:00, 12:00-14:00"))
        XCTAssertTrue(weekend.isOpen(at: at(0, 10)))
        XCTAssertTrue(weekend.isOpen(at: at(3, 13)), "a rule without days covers the other days")
        XCTAssertFalse(weekend.isOpen(at: at(3, 15)))
    }

    func testPixelShiftWalksASmallSquare() {
        var display = Settings.Display()
        let care = ScreenCare(settings: display)
        XCTAssertEqual(care.shift(now: 0), Point(0, 0))
        XCTAssertEqual(care.shift(now: 121), Point(2, 0))
        XCTAssertEqual(care.nextShift(now: 121), 240)
        let all = (0..<9).map { care.shift(now: Double($0) * ScreenCare.shiftInterval) }
        XCTAssertEqual(Set(all.map { "\($0.x),\($0.y)" }).count, 9)
        XCTAssertTrue(all.allSatisfy { abs($0.x) <= 2 && abs($0.y) <= 2 })
        display.pixelShift = false
        XCTAssertEqual(ScreenCare(settings: display).shift(now: 500), .zero)
    }

    private func runner(_ configure: (inout Settings) -> Void) throws -> (HeadlessRunner, StateStore) {
        try makeRunner(self) { s in
            s.kiosk.menuToAttractSeconds = 0
            s.kiosk.idleToMenuSeconds = 0
            configure(&s)
        }
    }

    func testDimThenOffThenAWakeTouchGoesNowhere() throws {
        let (runner, store) = try runner { s in
            s.display.dimAfterMinutes = 2
            s.display.offAfterMinutes = 5
        }
        var power: [Bool] = []
        runner.kiosk.cabinet.onPanelPower = { power.append($0); return true }
        runner.advance(119)
        XCTAssertEqual(runner.kiosk.panel.state, .on)
        runner.advance(2)
        XCTAssertEqual(runner.kiosk.panel.state, .dimmed)
        XCTAssertEqual(runner.kiosk.screen.dim, ScreenCare.pictureDim, "no backlight here: the picture dims")
        runner.advance(180)
        XCTAssertEqual(runner.kiosk.panel.state, .off)
        XCTAssertEqual(power, [false])
        XCTAssertFalse(runner.kiosk.wantsFrame, "nothing is drawn behind a dark panel")
        // The wake touch lands on a tile: it wakes the panel and opens nothing.
        let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
        let tile = try XCTUnwrap(menu.tile(for: "2048")).rectInRoot
        runner.tap([(tile.midX, tile.midY)])
        XCTAssertEqual(runner.kiosk.panel.state, .on)
        XCTAssertEqual(power, [false, true])
        XCTAssertEqual(runner.kiosk.screen.dim, 0)
        XCTAssertEqual(runner.kiosk.mode, .menu, "the wake touch is not passed on")
        XCTAssertEqual(store.plays(game: "2048"), 0)
        runner.tap([(tile.midX, tile.midY)])
        XCTAssertEqual(runner.kiosk.mode, .game("2048"), "the next touch plays")
        // A key wakes too.
        runner.kiosk.goHome()
        runner.advance(301)
        XCTAssertEqual(runner.kiosk.panel.state, .off)
        runner.key("confirm")
        XCTAssertEqual(runner.kiosk.panel.state, .on)
        XCTAssertEqual(runner.kiosk.mode, .menu)
    }

    func testWithoutDPMSThePictureGoesBlack() throws {
        let (runner, _) = try runner { $0.display.offAfterMinutes = 1 }
        runner.kiosk.cabinet.onPanelPower = { _ in false }
        runner.advance(61)
        XCTAssertEqual(runner.kiosk.panel.state, .off)
        XCTAssertEqual(runner.kiosk.screen.dim, 1)
        runner.advance(0.2)
        let shot = runner.screenshot()
        XCTAssertEqual(shot.pixel(x: 400, y: 240), Color.black, "the picture is black")
        runner.tap([(400, 240)])
        XCTAssertEqual(runner.kiosk.screen.dim, 0)
    }

    func testDimmingUsesTheBacklightWhenThereIsOne() throws {
        let (runner, _) = try runner { $0.display.dimAfterMinutes = 1 }
        var level = 80
        runner.kiosk.cabinet.brightnessReader = { level }
        runner.kiosk.cabinet.onBrightnessChange = { level = $0 }
        runner.advance(61)
        XCTAssertEqual(level, 20)
        XCTAssertEqual(runner.kiosk.screen.dim, 0, "the picture stays as drawn")
        runner.tap([(400, 20)])
        XCTAssertEqual(level, 80, "restored on wake")
    }

    func testPixelShiftMovesTheMenuAndTouchesFollow() throws {
        let (runner, store) = try runner { _ in }
        runner.advance(ScreenCare.shiftInterval + 1)
        XCTAssertEqual(runner.kiosk.screen.contentOffset, Point(2, 0))
        let menu = try XCTUnwrap(runner.kiosk.screen.scene as? MenuScene)
        let tile = try XCTUnwrap(menu.tile(for: "memory")).rectInRoot
        // 3 px inside the shifted tile's left edge: inside only because the tile moved.
        runner.tap([(tile.minX + 2 + 1, tile.midY)])
        XCTAssertEqual(runner.kiosk.mode, .game("memory"))
        XCTAssertEqual(runner.kiosk.screen.contentOffset, .zero, "games don't shift")
        XCTAssertEqual(store.plays(game: "memory"), 1)
    }

    private func hoursRunner(open: Bool, clockSet: Bool = true, card: Bool = true) throws -> (HeadlessRunner, [Int]) {
        let dir = try makeTemporaryDirectory(self)
        var settings = Settings()
        settings.kiosk.stateDir = dir
        settings.kiosk.dataDir = sourceRoot + "/data"
        settings.kiosk.hours = OpeningHours(parsing: "09:00-21:00")!
        settings.kiosk.closedCard = card
        settings.kiosk.menuToAttractSeconds = 0
        let runner = try HeadlessRunner(settings: settings, width: 800, height: 480, store: StateStore(directory: dir, now: 1),
                                        catalog: .standard)
        runner.frameInterval = 1.0 / 20
        runner.kiosk.panel.clockTrust = ClockTrust(synchronizedFlag: clockSet ? dir + "/running" : "/nonexistent",
                                             rtc: "/nonexistent")
        runner.kiosk.panel.wallClock = { WallClock(year: 2026, month: 12, day: 1, weekday: 2, hour: open ? 12 : 22, minute: 0) }
        // The first check ran at start with this machine's own clock: check again with these.
        runner.kiosk.panel.hoursCheckedAt = -.infinity
        runner.kiosk.panel.saidClockUntrusted = false
        return (runner, [])
    }

    func testOutsideTheHoursThePanelIsOffAndMutedAndATouchShowsTheCard() throws {
        let (runner, _) = try hoursRunner(open: false)
        var volumes: [Int] = []
        var power: [Bool] = []
        runner.kiosk.cabinet.onVolumeChange = { volumes.append($0) }
        runner.kiosk.cabinet.onPanelPower = { power.append($0); return true }
        runner.advance(CabinetPanel.hoursCheckInterval + 1)
        XCTAssertEqual(runner.kiosk.mode, .closed)
        XCTAssertEqual(runner.kiosk.panel.state, .off)
        XCTAssertEqual(volumes.last, 0)
        runner.tap([(400, 240)])
        XCTAssertEqual(runner.kiosk.panel.state, .on, "the closed card")
        XCTAssertTrue(runner.kiosk.screen.scene is ClosedScene)
        assertMatchesReference(runner.screenshot(), "closed-800x480-en")
        runner.advance(CabinetPanel.closedCardSeconds + 1)
        XCTAssertEqual(runner.kiosk.panel.state, .off, "a minute later, off again")
        // Opening time: the menu, sound back.
        runner.kiosk.panel.wallClock = { WallClock(year: 2026, month: 12, day: 2, weekday: 3, hour: 9, minute: 0) }
        runner.advance(CabinetPanel.hoursCheckInterval + 1)
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertEqual(runner.kiosk.panel.state, .on)
        XCTAssertEqual(volumes.last, Settings().audio.volume)
        XCTAssertEqual(power.last, true)
    }

    func testWithoutTheCardATouchLeavesItDark() throws {
        let (runner, _) = try hoursRunner(open: false, card: false)
        runner.advance(CabinetPanel.hoursCheckInterval + 1)
        runner.tap([(400, 240)])
        XCTAssertEqual(runner.kiosk.panel.state, .off)
        XCTAssertEqual(runner.kiosk.mode, .closed)
    }

    func testAnUnsetClockKeepsItOpenAndSaysSo() throws {
        let (runner, _) = try hoursRunner(open: false, clockSet: false)
        let log = capturingLog { runner.advance(CabinetPanel.hoursCheckInterval * 3) }
        XCTAssertEqual(runner.kiosk.mode, .menu)
        XCTAssertEqual(log.filter { $0.contains("clock is not set") }.count, 1, "said once")
    }

    func testVolumeCapAndAttractVolume() throws {
        let (runner, _) = try makeRunner(self) { s in
            s.audio.volume = 80
            s.audio.volumeMax = 60
            s.audio.attractVolume = 25
            s.kiosk.menuToAttractSeconds = 10
        }
        var volumes: [Int] = []
        runner.kiosk.cabinet.onVolumeChange = { volumes.append($0) }
        runner.advance(1)
        XCTAssertEqual(volumes.last, 60, "capped")
        runner.advance(10)
        XCTAssertEqual(runner.kiosk.mode, .attract("beat_zombies"))
        XCTAssertEqual(volumes.last, 15, "a quarter in the attract mode")
        runner.tap([(400, 240)])
        XCTAssertEqual(volumes.last, 60)
        runner.kiosk.volume = 100
        XCTAssertEqual(runner.kiosk.volume, 60, "the operator menu stops at the cap")
    }

    func testTheOperatorReachesEveryNewSetting() throws {
        let (runner, store) = try makeRunner(self)
        let k = runner.kiosk
        XCTAssertEqual(ScreenCarePage.step(0, by: 1), 1)
        XCTAssertEqual(ScreenCarePage.step(7, by: -1), 5)
        XCTAssertEqual(ScreenCarePage.step(0, by: -1), 0)
        k.change("display.dim_after", to: "5")
        k.change("display.off_after", to: "15")
        k.change("display.pixel_shift", to: "false")
        k.change("kiosk.hours", to: "10:00-22:00")
        k.change("kiosk.closed_card", to: "false")
        k.change("audio.volume_max", to: "50")
        k.change("audio.attract_volume", to: "20")
        k.change("audio.volume_max", to: "500")
        XCTAssertEqual(k.settings.audio.volumeMax, 50, "a bad value is refused")
        XCTAssertEqual(k.panel.care, ScreenCare(settings: k.settings.display), "applied at once")
        XCTAssertEqual(k.panel.care.dimAfter, 300)
        for (key, value) in [("display.dim_after", "5"), ("display.off_after", "15"), ("display.pixel_shift", "false"),
                             ("kiosk.hours", "10:00-22:00"), ("kiosk.closed_card", "false"),
                             ("audio.volume_max", "50"), ("audio.attract_volume", "20")] {
            XCTAssertEqual(store.setting(key), value, key)
        }
        // Saved settings come back at the next start.
        var again = Settings()
        _ = store.applySettings(to: &again)
        XCTAssertEqual(again.kiosk.hours.text, "10:00-22:00")
        XCTAssertEqual(again.display.offAfterMinutes, 15)
    }

    func testScreenCareAndSoundPages() throws {
        for (width, height, language) in [(800, 480, Language.english), (480, 800, Language.chinese)] {
            let (runner, _) = try makeRunner(self, width: width, height: height) { settings in
                settings.kiosk.language = language
                settings.display.dimAfterMinutes = 10
                settings.kiosk.hours = OpeningHours(parsing: "mon-fri 09:00-18:00, sat+sun 10:00-20:00")!
            }
            let suffix = "\(width)x\(height)-\(language.rawValue)"
            runner.kiosk.showPage(.screenCare)
            runner.advance(0.2)
            assertMatchesReference(runner.screenshot(), "operator-screen-care-\(suffix)")
            runner.kiosk.showPage(.sound)
            runner.advance(0.2)
            assertMatchesReference(runner.screenshot(), "operator-sound-\(suffix)")
            runner.kiosk.goHome()
        }
    }
}
