import Platform

/// A typed PIN whose hash is being worked out, and the pad it was typed on (nil once that
/// pad is gone: cancelled, or the kiosk went home).
struct PINCheck {
    let attempt: PINEntry.Attempt
    let verdict: BackgroundResult<Bool>
    weak var pad: PINScene?
    /// How often the loop looks for the verdict: a frame at 50 Hz.
    static let pollInterval = 0.02
}

/// The PIN pad in front of the operator menu. The PIN's PBKDF2 (200,000 SHA-256 blocks)
/// takes seconds under emulation and is a visible pause on a slow board: it runs on a
/// thread of its own while the run loop goes on (frames, sound, the watchdog), the pad
/// saying "Checking…"; `tick` takes the verdict. A verdict counts against guessing even
/// when the pad is gone by then.
extension Kiosk {
    public func openOperatorMenu() {
        // No PIN, no menu: a passer-by's F12 or corner hold must not open settings.
        guard pin.isSet else { return }
        leaveCurrent()
        mode = .pin
        idle.enter(.operatorMenu, now: now)
        let scene = PINScene(language: language)
        scene.onCancel = { [weak self] in self?.goHome() }
        pin.clear()
        scene.onKey = { [weak self, weak scene] key in
            // Keys wait while a PIN is checked: one check at a time.
            guard let self, let scene, self.pinCheck == nil else { return }
            switch key {
            case "⌫": self.pin.backspace()
            case "OK": return self.submitPIN(from: scene)
            default: if let d = Int(key) { self.pin.press(digit: d, now: self.now) }
            }
            scene.digitsEntered = self.pin.entered.count
        }
        show(scene)
    }

    private func submitPIN(from pad: PINScene) {
        switch pin.take(now: now) {
        case .decided(let outcome):
            answer(outcome, on: pad)
        case .check(let attempt):
            let verdict = BackgroundResult("pin-check", inBackground: worksInBackground) { attempt.isRight() }
            pinCheck = PINCheck(attempt: attempt, verdict: verdict, pad: pad)
            pad.isChecking = true
            finishPINCheck()
        }
    }

    /// When `tick` should look for the verdict again.
    var pinCheckDeadline: Double? { pinCheck == nil ? nil : now + PINCheck.pollInterval }

    /// Takes the verdict once it is there.
    func finishPINCheck() {
        guard let check = pinCheck, let matched = check.verdict.value else { return }
        pinCheck = nil
        check.pad?.isChecking = false
        // A reload that changed the PIN meanwhile: the verdict was on the old one.
        guard check.attempt.verifier == pin.verifierForComparison else {
            check.pad?.digitsEntered = 0
            return
        }
        let outcome = pin.record(check.attempt, matched: matched, now: now)
        if let pad = check.pad, mode == .pin, screen.scene === pad {
            answer(outcome, on: pad)
        } else {
            savePINState()
        }
    }

    private func answer(_ outcome: PINEntry.Outcome, on pad: PINScene) {
        savePINState()
        switch outcome {
        case .accepted:
            // For the books: when the service menu was opened (never the PIN itself).
            Log.notice("operator menu: opened with the PIN")
            if pin.acceptedPINIsWeak {
                Log.warning("operator menu: the PIN is one a passer-by tries first (like 1234 or 0000); set another with scripts/set-pin.sh")
            }
            showOperatorScene()
        case .rejected(let left):
            pad.reject(OperatorWords(language).wrongPIN(left))
        case .lockedOut(let until):
            Log.notice("operator menu: PIN pad locked for \(Int((until - now).rounded(.up))) s after wrong PINs")
            pad.reject(OperatorWords(language).lockedOut)
        case .nothingEntered:
            pad.reject(OperatorWords(language).enterPIN)
        case .noPIN:
            goHome()
        }
    }

    static let pinStateKeys = (failures: "operator_pin.failures", lockouts: "operator_pin.lockouts",
                               lockedSeconds: "operator_pin.locked_seconds")

    static func savedPINState(_ store: StateStore) -> PINEntry.Persisted {
        PINEntry.Persisted(failures: store.counter(pinStateKeys.failures), lockouts: store.counter(pinStateKeys.lockouts),
                           lockedSeconds: store.counter(pinStateKeys.lockedSeconds))
    }

    /// Written at once (not coalesced): a restart right after a wrong PIN must not forget it.
    private func savePINState() {
        let state = pin.persisted(now: now)
        guard state != Kiosk.savedPINState(store) else { return }
        store.setCounter(Kiosk.pinStateKeys.failures, state.failures, now: now)
        store.setCounter(Kiosk.pinStateKeys.lockouts, state.lockouts, now: now)
        store.setCounter(Kiosk.pinStateKeys.lockedSeconds, state.lockedSeconds, now: now)
        store.flush(now: now)
    }
}
