import Input

/// The operator's PIN pad: digits in, a verdict out. After `maxAttempts` wrong PINs in a
/// row the pad locks, for `lockoutSeconds`, doubling with each further lockout (capped at
/// an hour), so guessing a 4-digit PIN takes days. The count and the lockout survive a
/// restart (`persisted`/`restore`, kept in the state store), so pulling the plug does not
/// buy a new round of tries. The PIN itself is only ever a salted hash (`PINHash`).
public struct PINEntry: Sendable {
    public enum Outcome: Equatable, Sendable {
        case accepted
        case rejected(attemptsLeft: Int)
        case lockedOut(until: Double)
        /// No PIN is set: nothing opens the operator menu.
        case noPIN
        /// OK with nothing typed: not a guess, so it costs no try (a passer-by tapping OK
        /// must not lock the operator out for an hour).
        case nothingEntered
    }

    /// What must outlive the process. `lockedSeconds` is the lockout still to run, so it
    /// means the same after a restart or a reboot (the monotonic clock starts again).
    public struct Persisted: Equatable, Sendable {
        public var failures = 0
        public var lockouts = 0
        public var lockedSeconds = 0

        public init(failures: Int = 0, lockouts: Int = 0, lockedSeconds: Int = 0) {
            self.failures = failures
            self.lockouts = lockouts
            self.lockedSeconds = lockedSeconds
        }
    }

    public static let maxLength = 8
    public static let maxLockoutSeconds = 3600.0

    public private(set) var entered = ""
    public var maxAttempts: Int
    public var lockoutSeconds: Double
    public private(set) var lockedUntil: Double?
    /// True after an accepted PIN that a passer-by would try first (1234, 0000...).
    public private(set) var acceptedPINIsWeak = false
    private let verifier: PINHash?
    private var failures = 0
    private var lockouts = 0

    public init(verifier: PINHash?, maxAttempts: Int = 3, lockoutSeconds: Double = 60) {
        self.verifier = verifier
        self.maxAttempts = max(1, maxAttempts)
        self.lockoutSeconds = lockoutSeconds
    }

    public var isSet: Bool { verifier != nil }
    /// The hash it checks against, to tell whether a reload changed the PIN.
    public var verifierForComparison: PINHash? { verifier }

    /// One dot per digit typed, for the display.
    public var masked: String { String(repeating: "•", count: entered.count) }

    public func isLockedOut(now: Double) -> Bool {
        lockedUntil.map { now < $0 } ?? false
    }

    /// Adds a digit (0-9); ignored while locked out or when the entry is full.
    public mutating func press(digit: Int, now: Double) {
        guard (0...9).contains(digit), !isLockedOut(now: now), entered.count < PINEntry.maxLength else { return }
        entered += String(digit)
    }

    public mutating func backspace() {
        if !entered.isEmpty { entered.removeLast() }
    }

    public mutating func clear() {
        entered = ""
    }

    /// A typed PIN on its way to the hash. Checking it is PBKDF2's work (seconds under
    /// emulation, a visible pause on a slow board), so the kiosk does it off the run loop
    /// (`BackgroundResult`) and then `record`s the verdict.
    public struct Attempt: Sendable {
        let pin: String
        let verifier: PINHash

        public func isRight() -> Bool { verifier.matches(pin) }
    }

    /// What OK asks for: a verdict now (no PIN set, locked out, nothing typed), or an
    /// attempt to check.
    public enum Submission: Sendable {
        case decided(Outcome)
        case check(Attempt)
    }

    /// Takes what was entered, clearing it for the next try.
    public mutating func take(now: Double) -> Submission {
        defer { entered = "" }
        guard let verifier else { return .decided(.noPIN) }
        if let until = lockedUntil, now < until { return .decided(.lockedOut(until: until)) }
        if entered.isEmpty { return .decided(.nothingEntered) }
        return .check(Attempt(pin: entered, verifier: verifier))
    }

    /// The verdict on an attempt `take` gave, at the time it came.
    public mutating func record(_ attempt: Attempt, matched: Bool, now: Double) -> Outcome {
        guard matched else { return recordFailure(now: now) }
        acceptedPINIsWeak = PINHash.isWeak(attempt.pin)
        failures = 0
        lockouts = 0
        lockedUntil = nil
        return .accepted
    }

    /// `take`, the check and `record` in one go, on the caller's thread.
    public mutating func submit(now: Double) -> Outcome {
        switch take(now: now) {
        case .decided(let outcome): return outcome
        case .check(let attempt): return record(attempt, matched: attempt.isRight(), now: now)
        }
    }

    private mutating func recordFailure(now: Double) -> Outcome {
        failures = min(failures + 1, maxAttempts)
        if failures >= maxAttempts {
            failures = 0
            lockouts = min(lockouts + 1, 64)
            let seconds = min(PINEntry.maxLockoutSeconds, lockoutSeconds * Double(1 << min(lockouts - 1, 12)))
            lockedUntil = now + seconds
            return .lockedOut(until: now + seconds)
        }
        return .rejected(attemptsLeft: maxAttempts - failures)
    }

    public func persisted(now: Double) -> Persisted {
        let left = lockedUntil.map { max(0, $0 - now) } ?? 0
        return Persisted(failures: failures, lockouts: lockouts, lockedSeconds: Int(left.rounded(.up)))
    }

    /// Takes back what a previous run saved; values from a hand-edited file are clamped.
    public mutating func restore(_ saved: Persisted, now: Double) {
        failures = min(max(0, saved.failures), maxAttempts - 1)
        lockouts = min(max(0, saved.lockouts), 64)
        let seconds = min(max(0, Double(saved.lockedSeconds)), PINEntry.maxLockoutSeconds)
        lockedUntil = seconds > 0 ? now + seconds : nil
    }
}
