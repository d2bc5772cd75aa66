import Graphics
import Input
import Platform
import UI

/// The kiosk's side of screen care and opening hours: the panel dims and goes off after
/// idle minutes and any touch or key wakes it (that touch goes nowhere else); the menu and
/// the attract mode shift a few points every two minutes; outside the opening hours the
/// panel is off and the sound muted, and a touch shows a "closed" card for a minute. The
/// volume the mixer gets is the operator's, capped, and quieter in the attract mode.
extension Kiosk {
    static let closedCardSeconds = 60.0
    static let hoursCheckInterval = 30.0

    /// Every input passes here first; true when it was only a wake-up (or the cabinet is
    /// closed) and must go no further.
    func panelTakes(_ event: InputEvent) -> Bool {
        lastInput = now
        // The operator works whatever the hour.
        if isOperatorMode { return false }
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
            if isPress && settings.kiosk.closedCard {
                closedCardUntil = now + Kiosk.closedCardSeconds
                setPanel(.on)
            }
            if case .touch(let t) = event, t.phase == .down { wakeTouches.insert(t.id) }
            return true
        }
        guard panel != .on else { return false }
        if case .touch(let t) = event, t.phase == .down { wakeTouches.insert(t.id) }
        if isPress { setPanel(.on) }
        return true
    }

    /// The PIN pad, the operator menu and its pages, calibration.
    var isOperatorMode: Bool {
        switch mode {
        case .pin, .operatorMenu, .calibration: return true
        default: return false
        }
    }

    func tickPanel(now: Double) {
        checkOpeningHours(now: now)
        if isClosed && mode == .menu {
            // Back from the operator menu (or idle) while closed.
            mode = .closed
            show(ClosedScene(language: language, hours: settings.kiosk.hours.text))
        }
        let target: PanelState
        if isOperatorMode {
            target = .on
        } else if isClosed {
            target = (closedCardUntil.map { now < $0 } ?? false) ? .on : .off
        } else {
            target = care.state(idle: now - lastInput)
        }
        setPanel(target)
        screen.contentOffset = showsStaticScreen ? care.shift(now: now) : .zero
        applyVolume()
    }

    /// The menu and the attract mode hold still for long: those shift.
    private var showsStaticScreen: Bool {
        switch mode {
        case .menu, .attract, .closed: return true
        default: return false
        }
    }

    var panelDeadline: Double? {
        var d: [Double] = []
        if !isClosed, let next = care.nextChange(lastInput: lastInput, now: now) { d.append(next) }
        if showsStaticScreen, let shift = care.nextShift(now: now) { d.append(shift) }
        if settings.kiosk.hours.days != nil { d.append(hoursCheckedAt + Kiosk.hoursCheckInterval) }
        if let until = closedCardUntil, until > now { d.append(until) }
        return d.min()
    }

    /// Reads the wall clock at most every 30 s; an unset clock (a Pi before time sync) keeps
    /// the cabinet open, and says so once.
    private func checkOpeningHours(now: Double) {
        guard now - hoursCheckedAt >= Kiosk.hoursCheckInterval else { return }
        hoursCheckedAt = now
        let hours = settings.kiosk.hours
        guard hours.days != nil else { return setClosed(false) }
        guard clockTrust.isTrusted else {
            if !saidClockUntrusted {
                Log.notice("opening hours: the clock is not set (no time sync yet, no RTC); open until it is")
                saidClockUntrusted = true
            }
            return setClosed(false)
        }
        if saidClockUntrusted {
            Log.notice("opening hours: the clock is set; keeping hours \(hours.text)")
            saidClockUntrusted = false
        }
        setClosed(!hours.isOpen(at: wallClock()))
    }

    private func setClosed(_ closed: Bool) {
        guard closed != isClosed, !isOperatorMode else { return }
        if closed {
            Log.notice("opening hours: closed (\(settings.kiosk.hours.text)); panel off, sound muted")
            leaveCurrent()
            isClosed = true
            closedCardUntil = nil
            mode = .closed
            show(ClosedScene(language: language, hours: settings.kiosk.hours.text))
        } else {
            Log.notice("opening hours: open")
            isClosed = false
            closedCardUntil = nil
            lastInput = now
            goHome()
        }
        applyVolume()
    }

    /// Lights, dims or switches off the panel: the backlight when there is one, else the
    /// picture; off through DPMS when the display can (`onPanelPower`), else black.
    func setPanel(_ target: PanelState) {
        guard target != panel else { return }
        let old = panel
        panel = target
        Log.info("panel: \(target)")
        if old == .off && panelPoweredOff {
            _ = onPanelPower?(true)
            panelPoweredOff = false
        }
        switch target {
        case .on:
            if let saved = dimmedFrom { onBrightnessChange?(saved) }
            dimmedFrom = nil
            screen.dim = 0
        case .dimmed:
            if dimmedFrom == nil, let level = brightnessReader?() {
                dimmedFrom = level
                onBrightnessChange?(max(Backlight.minimumPercent, Int(Double(level) * ScreenCare.backlightDim)))
            } else if dimmedFrom == nil {
                screen.dim = ScreenCare.pictureDim
            }
        case .off:
            panelPoweredOff = onPanelPower?(false) ?? false
            if !panelPoweredOff { screen.dim = 1 }
            // Nobody is watching: no attract mode burning the CPU behind a dark panel.
            if case .attract = mode { goHome() }
        }
        screen.invalidateAll()
    }

    /// The mixer's volume: the operator's, capped; a share of it in the attract mode;
    /// nothing while closed.
    func applyVolume() {
        let audio = settings.audio
        var level = min(audio.volume, audio.volumeMax)
        if case .attract = mode { level = level * audio.attractVolume / 100 }
        if isClosed { level = 0 }
        guard level != appliedVolume else { return }
        appliedVolume = level
        onVolumeChange?(level)
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
