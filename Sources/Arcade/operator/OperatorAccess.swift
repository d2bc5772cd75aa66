import Input
import Platform
import UI

/// A typed PIN whose hash is being worked out, and the pad it was typed on (nil once that
/// pad is gone: cancelled, or the kiosk went home).
struct PINCheck {
    let attempt: PINEntry.Attempt
    let verdict: BackgroundResult<Bool>
    weak var pad: PINScene?
    /// How often the loop looks for the verdict: a frame at 50 Hz.
    static let pollInterval = 0.02
}

/// The way into the operator menu, and the state it keeps: the gesture (or key) that asks
/// for the PIN pad, the PIN being typed, and a PIN being checked. The PIN's PBKDF2 (200,000
/// SHA-256 blocks) takes seconds under emulation and is a visible pause on a slow board: it
/// runs on a thread of its own while the run loop goes on (frames, sound, the watchdog),
/// the pad saying "Checking…"; `tick` takes the verdict. A verdict counts against guessing
/// even when the pad is gone by then.
final class OperatorAccess {
    private var gesture: OperatorGesture
    private(set) var pin: PINEntry
    /// A PIN being checked off the run loop.
    private(set) var pinCheck: PINCheck?

    init(screen: Screen, verifier: PINHash?, store: StateStore, now: Double) {
        gesture = OperatorGesture(width: Double(screen.pixelWidth), height: Double(screen.pixelHeight))
        pin = PINEntry(verifier: verifier)
        pin.restore(OperatorAccess.savedPINState(store), now: now)
        if pin.isSet == false {
            Log.notice("operator menu: no PIN is set, so it stays closed; settings come from /etc/boardwalk/boardwalk.conf (set a PIN: scripts/set-pin.sh)")
        }
    }

    /// The settings' PIN changed (a reload): the pad's lockout carries over.
    func apply(verifier: PINHash?, now: Double) {
        guard verifier != pin.verifierForComparison else { return }
        let saved = pin.persisted(now: now)
        pin = PINEntry(verifier: verifier)
        pin.restore(saved, now: now)
    }

    /// Every input event: true when it completed the gesture that asks for the PIN pad.
    func gestureCompleted(by event: InputEvent) -> Bool { gesture.handle(event) }

    /// The gesture's hold, timed: true when it completed now.
    func gestureCompleted(now: Double) -> Bool { gesture.update(now: now) }

    /// When `tick` should look again: the gesture's hold, or the verdict of a PIN check
    /// (polled at 50 Hz).
    func deadline(now: Double) -> Double? {
        [gesture.deadline, pinCheck == nil ? nil : now + PINCheck.pollInterval].compactMap { $0 }.min()
    }

    func openPad(in kiosk: Kiosk) {
        // No PIN, no menu: a passer-by's F12 or corner hold must not open settings.
        guard pin.isSet else { return }
        kiosk.leaveCurrent()
        kiosk.mode = .pin
        kiosk.idle.enter(.operatorMenu, now: kiosk.now)
        let scene = PINScene(language: kiosk.language)
        scene.onCancel = { [weak kiosk] in kiosk?.goHome() }
        pin.clear()
        scene.onKey = { [weak self, weak scene, weak kiosk] key in
            // Keys wait while a PIN is checked: one check at a time.
            guard let self, let scene, let kiosk, self.pinCheck == nil else { return }
            switch key {
            case "⌫": self.pin.backspace()
            case "OK": return self.submit(from: scene, in: kiosk)
            default: if let d = Int(key) { self.pin.press(digit: d, now: kiosk.now) }
            }
            scene.digitsEntered = self.pin.entered.count
        }
        kiosk.show(scene)
    }

    private func submit(from pad: PINScene, in kiosk: Kiosk) {
        switch pin.take(now: kiosk.now) {
        case .decided(let outcome):
            answer(outcome, on: pad, in: kiosk)
        case .check(let attempt):
            let verdict = BackgroundResult("pin-check", inBackground: kiosk.cabinet.worksInBackground) { attempt.isRight() }
            pinCheck = PINCheck(attempt: attempt, verdict: verdict, pad: pad)
            pad.isChecking = true
            finishCheck(in: kiosk)
        }
    }

    /// Takes the verdict once it is there.
    func finishCheck(in kiosk: Kiosk) {
        guard let check = pinCheck, let matched = check.verdict.value else { return }
        pinCheck = nil
        check.pad?.isChecking = false
        // A reload that changed the PIN meanwhile: the verdict was on the old one.
        guard check.attempt.verifier == pin.verifierForComparison else {
            check.pad?.digitsEntered = 0
            return
        }
        let outcome = pin.record(check.attempt, matched: matched, now: kiosk.now)
        if let pad = check.pad, kiosk.mode == .pin, kiosk.screen.scene === pad {
            answer(outcome, on: pad, in: kiosk)
        } else {
            savePINState(kiosk.store, now: kiosk.now)
        }
    }

    private func answer(_ outcome: PINEntry.Outcome, on pad: PINScene, in kiosk: Kiosk) {
        savePINState(kiosk.store, now: kiosk.now)
        let words = OperatorWords(kiosk.language)
        switch outcome {
        case .accepted:
            // For the books: when the service menu was opened (never the PIN itself).
            Log.notice("operator menu: opened with the PIN")
            if pin.acceptedPINIsWeak {
                Log.warning("operator menu: the PIN is one a passer-by tries first (like 1234 or 0000); set another with scripts/set-pin.sh")
            }
            kiosk.showOperatorScene()
        case .rejected(let left):
            pad.reject(words.wrongPIN(left))
        case .lockedOut(let until):
            Log.notice("operator menu: PIN pad locked for \(Int((until - kiosk.now).rounded(.up))) s after wrong PINs")
            pad.reject(words.lockedOut)
        case .nothingEntered:
            pad.reject(words.enterPIN)
        case .noPIN:
            kiosk.goHome()
        }
    }

    static func savedPINState(_ store: StateStore) -> PINEntry.Persisted {
        PINEntry.Persisted(failures: store.counter(CounterKey.pinFailures), lockouts: store.counter(CounterKey.pinLockouts),
                           lockedSeconds: store.counter(CounterKey.pinLockedSeconds))
    }

    /// Written at once (not coalesced): a restart right after a wrong PIN must not forget it.
    private func savePINState(_ store: StateStore, now: Double) {
        let state = pin.persisted(now: now)
        guard state != OperatorAccess.savedPINState(store) else { return }
        store.setCounter(CounterKey.pinFailures, state.failures, now: now)
        store.setCounter(CounterKey.pinLockouts, state.lockouts, now: now)
        store.setCounter(CounterKey.pinLockedSeconds, state.lockedSeconds, now: now)
        store.flush(.counters, now: now)
    }
}
