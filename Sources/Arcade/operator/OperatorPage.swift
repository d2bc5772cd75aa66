import Graphics
import Input
import UI

/// An operator page behind the operator menu (high scores, coins and credits, the books):
/// a title, Done (back to the menu), and rows of `SettingRow`s under it, each with the
/// closure that refreshes it after a change.
public class OperatorPage: Scene {
    /// Unowned, as the operator menu's: the kiosk holds the page while it shows, and a
    /// strong reference (here or in a row's closure) kept a dropped kiosk alive.
    unowned let controls: OperatorControls
    let words: OperatorWords
    public var onClose: (() -> Void)?
    private let titleLabel = Label("", style: Theme.heading)
    private let close: Button
    private(set) var rows: [View] = []
    private var refreshers: [() -> Void] = []
    /// Height of each row (a taller view, such as the books' table, sets its own).
    var rowHeights: [ObjectIdentifier: Double] = [:]

    init(controls: OperatorControls, title: (OperatorWords) -> String) {
        self.controls = controls
        words = OperatorWords(controls.language)
        close = OperatorPage.doneButton(words)
        super.init()
        backgroundColor = Theme.background
        titleLabel.text = title(words)
        [titleLabel, close].forEach(addSubview)
        close.action = { [weak self] in self?.onClose?() }
    }

    /// Done, on the menu and on every page: blue with white words, apart from the tabs
    /// (the selected one is amber, the others grey) so it never reads as one of them.
    static func doneButton(_ words: OperatorWords) -> Button {
        let b = Button(words.done, kind: .secondary)
        b.fillColor = Theme.success
        b.textStyle = Theme.button.with(color: .white)
        return b
    }

    func add(_ row: View, height: Double = 56, refresh: (() -> Void)? = nil) {
        rows.append(row)
        rowHeights[ObjectIdentifier(row)] = height
        addSubview(row)
        if let refresh { refreshers.append(refresh) }
    }

    /// A row with − and + that steps a number.
    func stepper(_ name: String, value: @escaping () -> String, minus: @escaping () -> Void, plus: @escaping () -> Void) {
        let m = Button("−", kind: .secondary) { [weak self] in minus(); self?.refresh() }
        let p = Button("+", kind: .secondary) { [weak self] in plus(); self?.refresh() }
        let row = SettingRow(name: name, buttons: [m, p])
        add(row) { [weak row] in row?.valueLabel.text = value() }
    }

    /// Asks before doing something that can't be undone.
    func confirm(_ title: String, message: String, action: String, _ body: @escaping () -> Void) {
        Dialog(title: title, message: message, buttons: [
            (action, .primary, { [weak self] in body(); self?.refresh() }),
            (words.cancel, .secondary, {}),
        ]).present(on: self)
    }

    public func refresh() { refreshers.forEach { $0() } }

    public override func handleBack() { onClose?() }

    public override func layout() {
        titleLabel.frame = Rect(24, 14, size.width - 48 - 140, 52)
        close.frame = Rect(size.width - 136, 14, 120, 52)
        var y = 82.0
        for row in rows {
            let h = rowHeights[ObjectIdentifier(row)] ?? 56
            row.frame = Rect(24, y, size.width - 48, h)
            y += h + 8
        }
    }
}
