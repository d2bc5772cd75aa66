import Graphics
import Input
import UI

/// Three letters for a new high-score entry, as typed so far. Every change pushes the
/// deadline back; a player who walks away keeps what is there ("AAA" untouched).
struct InitialsEntry: Equatable {
    /// Seconds without input before the entry is taken as it stands.
    static let timeout = 20.0
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    /// Each slot's letter, as an index into `alphabet`.
    private(set) var letters = [0, 0, 0]
    /// The slot the arrows change.
    private(set) var cursor = 0
    private(set) var deadline: Double

    init(now: Double) { deadline = now + Self.timeout }

    var initials: String { String(letters.map { Self.alphabet[$0] }) }

    /// Up (+1) or down (-1) through A-Z, wrapping.
    mutating func change(by step: Int, now: Double) {
        let n = Self.alphabet.count
        letters[cursor] = ((letters[cursor] + step) % n + n) % n
        touch(now)
    }

    mutating func moveCursor(by step: Int, now: Double) {
        cursor = min(2, max(0, cursor + step))
        touch(now)
    }

    mutating func select(slot: Int, now: Double) {
        cursor = min(2, max(0, slot))
        touch(now)
    }

    func isExpired(now: Double) -> Bool { now >= deadline }

    private mutating func touch(_ now: Double) { deadline = max(deadline, now + Self.timeout) }
}

/// "New high score!": three letter slots, each with an up and a down button, and OK. The
/// stick or arrows work too: up/down change the letter, left/right pick the slot, confirm
/// goes to the next slot and, on the last, saves. The kiosk takes the entry when OK is
/// pressed (`onDone`) or the timeout passes.
final class InitialsScene: Scene {
    private(set) var entry: InitialsEntry
    var onDone: ((String) -> Void)?
    /// The kiosk's clock (input arrives between frames).
    var clock: () -> Double
    private let language: Language
    private let titleLabel = Label("", style: Theme.title.with(color: Theme.accent))
    private let detailLabel = Label("", style: Theme.body)
    private let hintLabel = Label("", style: Theme.caption)
    private var slots: [LetterSlot] = []
    private var ups: [Button] = []
    private var downs: [Button] = []
    let okButton: Button
    private var shownSeconds = -1

    /// `detail` says what was set: "2048 5×5 · 12345 · 3rd".
    init(detail: String, language: Language, now: Double, clock: @escaping () -> Double) {
        entry = InitialsEntry(now: now)
        self.clock = clock
        self.language = language
        okButton = Button(language == .chinese ? "确定" : "OK", kind: .primary)
        super.init()
        backgroundColor = Theme.background
        titleLabel.text = language == .chinese ? "新纪录！" : "New high score!"
        detailLabel.text = detail
        [titleLabel, detailLabel, hintLabel, okButton].forEach(addSubview)
        for i in 0..<3 {
            let slot = LetterSlot()
            slot.action = { [weak self] in self?.edit { $0.select(slot: i, now: $1) } }
            let up = Button("▲", kind: .secondary)
            up.action = { [weak self] in self?.edit { $0.select(slot: i, now: $1); $0.change(by: 1, now: $1) } }
            let down = Button("▼", kind: .secondary)
            down.action = { [weak self] in self?.edit { $0.select(slot: i, now: $1); $0.change(by: -1, now: $1) } }
            slots.append(slot)
            ups.append(up)
            downs.append(down)
            [up, slot, down].forEach(addSubview)
        }
        okButton.action = { [weak self] in self?.finish() }
        showEntry()
    }

    var initials: String { entry.initials }

    /// Takes the entry as it stands (OK, the timeout, or the player left).
    func finish() {
        let done = onDone
        onDone = nil
        done?(entry.initials)
    }

    private func edit(_ change: (inout InitialsEntry, Double) -> Void) {
        change(&entry, clock())
        showEntry()
    }

    private func showEntry() {
        for (i, slot) in slots.enumerated() {
            slot.letter = String(InitialsEntry.alphabet[entry.letters[i]])
            slot.isCurrent = i == entry.cursor
        }
        updateHint()
    }

    private func updateHint() {
        let left = max(0, Int((entry.deadline - clock()).rounded(.up)))
        guard left != shownSeconds else { return }
        shownSeconds = left
        hintLabel.text = language == .chinese
            ? "▲▼ 选字母，◀▶ 换位置 · \(left) 秒后自动保存"
            : "▲▼ letter, ◀▶ place · saved as it is in \(left) s"
    }

    override var isLive: Bool { onDone != nil }
    override func update(dt: Double) { updateHint() }

    override func handleKey(_ key: Key) -> Bool {
        switch key {
        case .up: edit { $0.change(by: 1, now: $1) }
        case .down: edit { $0.change(by: -1, now: $1) }
        case .left: edit { $0.moveCursor(by: -1, now: $1) }
        case .right: edit { $0.moveCursor(by: 1, now: $1) }
        case .confirm, .start:
            if entry.cursor < 2 { edit { $0.moveCursor(by: 1, now: $1) } } else { finish() }
        default: return false
        }
        return true
    }

    /// Back saves too: the entry is the player's, whatever they typed.
    override func handleBack() { finish() }

    override func layout() {
        let portrait = size.height > size.width
        let top = portrait ? 90.0 : 18
        titleLabel.frame = Rect(0, top, size.width, 52)
        detailLabel.frame = Rect(0, titleLabel.frame.maxY + 4, size.width, 30)
        let slotSize = portrait ? Size(110, 130) : Size(96, 110)
        let gap = 24.0
        let x0 = (size.width - 3 * slotSize.width - 2 * gap) / 2
        let upY = detailLabel.frame.maxY + (portrait ? 50 : 14)
        for i in 0..<3 {
            let x = x0 + Double(i) * (slotSize.width + gap)
            ups[i].frame = Rect(x, upY, slotSize.width, 52)
            slots[i].frame = Rect(x, upY + 60, slotSize.width, slotSize.height)
            downs[i].frame = Rect(x, slots[i].frame.maxY + 8, slotSize.width, 52)
        }
        let okY = downs[0].frame.maxY + (portrait ? 50 : 14)
        okButton.frame = Rect(center: Point(size.width / 2, okY + 30), size: Size(220, 60))
        hintLabel.frame = Rect(0, okButton.frame.maxY + 8, size.width, 24)
    }
}

/// One big letter; the slot the arrows change is outlined.
final class LetterSlot: Button {
    var letter = "A" { didSet { if letter != oldValue { setNeedsDisplay() } } }
    var isCurrent = false { didSet { if isCurrent != oldValue { setNeedsDisplay() } } }

    init() {
        super.init("", kind: .secondary)
        playsClick = false
    }

    override func draw(_ canvas: Canvas) {
        canvas.fillRoundedRect(bounds, radius: Theme.radius, Theme.surfaceRaised)
        if isCurrent { canvas.strokeRoundedRect(bounds.insetBy(2, 2), radius: Theme.radius, width: 4, Theme.accent) }
        canvas.drawText(letter, in: bounds, style: TextStyle(size: bounds.height * 0.6, weight: .bold, color: Theme.text),
                        fonts: UIEnvironment.fonts, wrap: false)
    }
}
