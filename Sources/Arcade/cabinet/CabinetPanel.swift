import Graphics
import Input
import Platform
import UI

/// Screen care and opening hours, and the state they keep: the panel dims and goes off
/// after idle minutes and any touch or key wakes it (that touch goes nowhere else); the
/// menu and the attract mode shift a few points every two minutes; outside the opening
/// hours the panel is off and the sound muted, and a touch shows a "closed" card for a
/// minute. The volume the mixer gets is the operator's, capped, and quieter in the
/// attract mode. The kiosk passes itself in where a step moves between screens.
final class CabinetPanel {
    static let closedCardSeconds = 60.0
    static let hoursCheckInterval = 30.0

    var care: ScreenCare
    private(set) var state: PanelState = .on
    /// The last touch or key, for dimming and the idle menu.
    private(set) var lastInput: Double
    /// Touches that woke the panel: their moves and lift go nowhere.
    private var wakeTouches: Set<Int> = []
    var clockTrust = ClockTrust()
    /// The wall clock for opening hours (tests fix it); the store's wall time by default.
    var wallClock: () -> WallClock = { WallClock.now() }
    private(set) var isClosed = false
    private var closedCardUntil: Double?
    var hoursCheckedAt = -Double.infinity
    var saidClockUntrusted = false
    /// The backlight level before dimming (nil: not dimmed through the backlight).
    private var dimmedFrom: Int?
    /// Whether the panel is off through DPMS (then nothing needs drawing).
    private(set) var poweredOff = false

    init(settings: Settings.Display, now: Double) {
        care = ScreenCare(settings: settings)
        lastInput = now
    }

    /// Every input passes here first; true when it was only a wake-up (or the cabinet is
    /// closed) and must go no further.
    func takes(_ event: InputEvent, in kiosk: Kiosk) -> Bool {
        lastInput = kiosk.now
        // The operator works whatever the hour.
        if kiosk.isOperatorMode { return false }
        if case .touch(let t) = event, wakeTouches.contains(t.id) {
            if t.phase == .up || t.phase == .cancel { wakeTouches.remove(t.id) }
            return true
        }
        let isPress: Bool
        switch event {
        case .touch(let t): isPress = t.phase == .down
        case .key(let k): isPress = k.isPressed
        }
        if isClosed {
            if isPress && kiosk.settings.kiosk.closedCard {
                closedCardUntil = kiosk.now + CabinetPanel.closedCardSeconds
                set(.on, in: kiosk)
            }
            if case .touch(let t) = event, t.phase == .down { wakeTouches.insert(t.id) }
            return true
        }
        guard state != .on else { return false }
        if case .touch(let t) = event, t.phase == .down { wakeTouches.insert(t.id) }
        if isPress { set(.on, in: kiosk) }
        return true
    }

    func tick(in kiosk: Kiosk) {
        let now = kiosk.now
        checkOpeningHours(in: kiosk)
        if isClosed && kiosk.mode == .menu {
            // Back from the operator menu (or idle) while closed.
            showClosed(in: kiosk)
        }
        let target: PanelState
        if kiosk.isOperatorMode {
            target = .on
        } else if isClosed {
            target = (closedCardUntil.map { now < $0 } ?? false) ? .on : .off
        } else {
            target = care.state(idle: now - lastInput)
        }
        set(target, in: kiosk)
        kiosk.screen.contentOffset = Self.showsStaticScreen(kiosk.mode) ? care.shift(now: now) : .zero
        applyVolume(in: kiosk)
    }

    /// The menu and the attract mode hold still for long: those shift.
    private static func showsStaticScreen(_ mode: Kiosk.Mode) -> Bool {
        switch mode {
        case .menu, .attract, .closed: return true
        default: return false
        }
    }

    func deadline(in kiosk: Kiosk) -> Double? {
        let now = kiosk.now
        var d: [Double] = []
        if !isClosed, let next = care.nextChange(lastInput: lastInput, now: now) { d.append(next) }
        if Self.showsStaticScreen(kiosk.mode), let shift = care.nextShift(now: now) { d.append(shift) }
        if kiosk.settings.kiosk.hours.days != nil { d.append(hoursCheckedAt + CabinetPanel.hoursCheckInterval) }
        if let until = closedCardUntil, until > now { d.append(until) }
        return d.min()
    }

    /// New settings: screen care's times, and the hours looked at again on the next tick.
    func apply(_ settings: Settings) {
        care = ScreenCare(settings: settings.display)
        hoursCheckedAt = -Double.infinity
    }

    /// Reads the wall clock at most every 30 s; an unset clock (a Pi before time sync) keeps
    /// the cabinet open, and says so once.
    private func checkOpeningHours(in kiosk: Kiosk) {
        guard kiosk.now - hoursCheckedAt >= CabinetPanel.hoursCheckInterval else { return }
        hoursCheckedAt = kiosk.now
        let hours = kiosk.settings.kiosk.hours
        guard hours.days != nil else { return setClosed(false, in: kiosk) }
        guard clockTrust.isTrusted else {
            if !saidClockUntrusted {
                Log.notice("opening hours: the clock is not set (no time sync yet, no RTC); open until it is")
                saidClockUntrusted = true
            }
            return setClosed(false, in: kiosk)
        }
        if saidClockUntrusted {
            Log.notice("opening hours: the clock is set; keeping hours \(hours.text)")
            saidClockUntrusted = false
        }
        setClosed(!hours.isOpen(at: wallClock()), in: kiosk)
    }

    private func setClosed(_ closed: Bool, in kiosk: Kiosk) {
        guard closed != isClosed, !kiosk.isOperatorMode else { return }
        if closed {
            Log.notice("opening hours: closed (\(kiosk.settings.kiosk.hours.text)); panel off, sound muted")
            kiosk.leaveCurrent()
            isClosed = true
            closedCardUntil = nil
            showClosed(in: kiosk)
        } else {
            Log.notice("opening hours: open")
            isClosed = false
            closedCardUntil = nil
            lastInput = kiosk.now
            kiosk.goHome()
        }
        applyVolume(in: kiosk)
    }

    private func showClosed(in kiosk: Kiosk) {
        kiosk.mode = .closed
        kiosk.show(ClosedScene(language: kiosk.language, hours: kiosk.settings.kiosk.hours.text))
    }

    /// Lights, dims or switches off the panel: the backlight when there is one, else the
    /// picture; off through DPMS when the display can (`Cabinet.onPanelPower`), else black.
    func set(_ target: PanelState, in kiosk: Kiosk) {
        guard target != state else { return }
        let old = state
        state = target
        Log.info("panel: \(target)")
        let cabinet = kiosk.cabinet, screen = kiosk.screen
        if old == .off && poweredOff {
            _ = cabinet.onPanelPower?(true)
            poweredOff = false
        }
        switch target {
        case .on:
            if let saved = dimmedFrom { cabinet.onBrightnessChange?(saved) }
            dimmedFrom = nil
            screen.dim = 0
        case .dimmed:
            if dimmedFrom == nil, let level = cabinet.brightnessReader?() {
                dimmedFrom = level
                cabinet.onBrightnessChange?(max(Backlight.minimumPercent, Int(Double(level) * ScreenCare.backlightDim)))
            } else if dimmedFrom == nil {
                screen.dim = ScreenCare.pictureDim
            }
        case .off:
            poweredOff = cabinet.onPanelPower?(false) ?? false
            if !poweredOff { screen.dim = 1 }
            // Nobody is watching: no attract mode burning the CPU behind a dark panel.
            if case .attract = kiosk.mode { kiosk.goHome() }
        }
        screen.invalidateAll()
    }

    /// The mixer's volume: the operator's, capped; a share of it in the attract mode;
    /// nothing while closed. `force`: told again even if unchanged (a new mixer).
    func applyVolume(in kiosk: Kiosk, force: Bool = false) {
        let audio = kiosk.settings.audio
        var level = min(audio.volume, audio.volumeMax)
        if case .attract = kiosk.mode { level = level * audio.attractVolume / 100 }
        if isClosed { level = 0 }
        kiosk.cabinet.setVolume(level, force: force)
    }
}

/// Outside the opening hours, what a touch shows for a minute.
final class ClosedScene: Scene {
    private let icon = ImageView(emoji: "🌙")
    private let titleLabel = Label("", style: Theme.title)
    private let hoursLabel = Label("", style: Theme.body.with(color: Theme.textDim))

    init(language: Language, hours: String) {
        super.init()
        backgroundColor = Theme.background
        titleLabel.text = language == .chinese ? "休息中" : "Closed"
        let shown = OperatorWords(language).hours(hours)
        hoursLabel.text = language == .chinese ? "营业时间：\(shown)" : "Opening hours: \(shown)"
        [icon, titleLabel, hoursLabel].forEach(addSubview)
    }

    override func handleBack() {}

    override func layout() {
        icon.frame = Rect(center: Point(size.width / 2, size.height / 2 - 90), size: Size(96, 96))
        titleLabel.frame = Rect(0, size.height / 2 - 30, size.width, 56)
        hoursLabel.frame = Rect(20, size.height / 2 + 30, size.width - 40, 60)
    }
}
