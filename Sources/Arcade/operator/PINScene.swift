#if canImport(Glibc)
import Glibc
#endif
import Graphics
import Input
import UI

/// The PIN pad in front of the operator menu: digits, delete, OK. It only shows: the
/// keys go to `onKey` ("0"..."9", "⌫", "OK"), and the owner (a `PINEntry`) sets how many
/// dots to show and calls `reject` for a wrong PIN, which shakes them.
public final class PINScene: Scene {
    public var onKey: ((String) -> Void)?
    public var onCancel: (() -> Void)?
    public var digitsEntered = 0 { didSet { dots.setNeedsDisplay() } }
    /// While the PIN is checked (off the run loop): the pad says so and keeps its dots.
    public var isChecking = false {
        didSet {
            message.text = isChecking ? words.checkingPIN : words.enterPIN
            message.style = Theme.caption
        }
    }
    private let words: OperatorWords
    private let title = Label("", style: Theme.heading)
    private let message = Label("", style: Theme.caption)
    private let dots = DrawingView { _, _ in }
    private var keys: [Button] = []

    /// The pad's words follow the kiosk's language (the digits are the digits).
    public init(language: Language = .english) {
        words = OperatorWords(language)
        super.init()
        title.text = words.operatorTitle
        message.text = words.enterPIN
        backgroundColor = Theme.background
        [title, message, dots].forEach(addSubview)
        dots.drawing = { [weak self] canvas, r in
            guard let self else { return }
            let n = max(4, self.digitsEntered)
            let gap = 26.0
            let x0 = r.midX - gap * Double(n - 1) / 2
            for i in 0..<n {
                let filled = i < self.digitsEntered
                let c = Point(x0 + gap * Double(i), r.midY)
                if filled { canvas.fillCircle(center: c, radius: 8, Theme.accent) }
                else { canvas.strokeEllipse(Rect(c.x - 8, c.y - 8, 16, 16), width: 2, Theme.textDim) }
            }
        }
        for label in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"] {
            let b = Button(label == "OK" ? words.ok : label, kind: label == "OK" ? .primary : .secondary)
            b.action = { [weak self] in self?.onKey?(label) }
            keys.append(b)
            addSubview(b)
        }
        let cancel = Button("✕", kind: .quiet)
        cancel.action = { [weak self] in self?.onCancel?() }
        cancel.tag = "cancel"
        keys.append(cancel)
        addSubview(cancel)
    }

    /// Shows why the PIN was refused (wrong, locked out) and shakes the dots.
    public func reject(_ text: String) {
        digitsEntered = 0
        message.text = text
        message.style = Theme.caption.with(color: Theme.error)
        dots.setNeedsDisplay()
        let base = dots.frame
        animator.tween(duration: 0.3, easing: .linear) { [weak self] t in
            self?.dots.frame = base.offsetBy(sin(t * .pi * 6) * 10 * (1 - t), 0)
        }
    }

    /// Digits typed on a keyboard go in as if tapped; Enter submits them unless the arrows
    /// put focus on a key of the pad (then Enter presses that key).
    public override func handleKey(_ key: Key) -> Bool {
        if let digit = key.digit {
            onKey?(String(digit))
            return true
        }
        if key == .confirm, focusedView == nil || focusedView?.isVisibleInTree == false {
            onKey?("OK")
            return true
        }
        return false
    }
    public override func handleBack() { onCancel?() }

    public override func layout() {
        let w = min(size.width - 40, 360.0)
        let x0 = (size.width - w) / 2
        title.frame = Rect(0, 16, size.width, 44)
        message.frame = Rect(0, 58, size.width, 24)
        dots.frame = Rect(x0, 86, w, 30)
        let padTop = 126.0
        let cells = GridLayout(columns: 3, rows: 4, spacing: 10).frames(in: Rect(x0, padTop, w, size.height - padTop - 12))
        for (i, b) in keys.prefix(12).enumerated() { b.frame = cells[i] }
        keys[12].frame = Rect(size.width - 70, 12, 56, 56)
    }
}
