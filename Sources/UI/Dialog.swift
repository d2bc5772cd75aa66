import Graphics

/// A modal panel over a dimmed cover: a title, a message and a row of buttons. While it
/// shows, touches and focus stay inside it. It grows in, as panels do in the games.
open class Dialog: View {
    public let panel = Panel(fill: Theme.surface)
    public let titleLabel = Label("", style: Theme.heading)
    public let messageLabel = Label("", style: Theme.body)
    public private(set) var buttons: [Button] = []
    /// What the back key does: the last button's action by default.
    public var onCancel: (() -> Void)?

    public init(title: String, message: String = "", buttons: [(String, Button.Kind, () -> Void)]) {
        super.init(frame: .zero)
        backgroundColor = Theme.dimCover
        titleLabel.text = title
        messageLabel.text = message
        messageLabel.style = Theme.body.with(color: Theme.textDim)
        addSubview(panel)
        panel.addSubview(titleLabel)
        panel.addSubview(messageLabel)
        for (title, kind, action) in buttons {
            let b = Button(title, kind: kind) { [weak self] in
                self?.dismiss()
                action()
            }
            self.buttons.append(b)
            panel.addSubview(b)
        }
    }

    /// Covers the whole scene and centres the panel.
    public func layout(in size: Size) {
        frame = Rect(0, 0, size.width, size.height)
        let width = min(460, size.width - 40)
        let hasMessage = !messageLabel.text.isEmpty
        // The title and message get the lines they wrap to (a long version in the title, a
        // paragraph of a message), at least the room short ones always had.
        let titleHeight = max(50, Dialog.wrappedHeight(titleLabel, width: width - 40) + 8)
        let messageHeight = hasMessage ? max(80, Dialog.wrappedHeight(messageLabel, width: width - 40) + 8) : 0
        let height = min(size.height - 20, 18 + titleHeight + (hasMessage ? messageHeight + 22 : 42) + 80)
        panel.frame = Rect(center: Point(size.width / 2, size.height / 2), size: Size(width, height))
        titleLabel.frame = Rect(20, 18, width - 40, titleHeight)
        messageLabel.frame = Rect(20, 18 + titleHeight, width - 40, messageHeight)
        let count = Double(max(1, buttons.count))
        let bw = (width - 40 - 16 * (count - 1)) / count
        for (i, b) in buttons.enumerated() {
            b.frame = Rect(20 + Double(i) * (bw + 16), height - 80, bw, 60)
        }
    }

    /// The height a label's text takes wrapped to a width (points).
    static func wrappedHeight(_ label: Label, width: Double) -> Double {
        guard !label.text.isEmpty else { return 0 }
        let lines = max(1, UIEnvironment.fonts.wrap(label.text, style: label.style, scale: 1, maxWidth: width).count)
        return label.style.size * label.style.lineSpacing * Double(lines - 1) + label.style.size
    }

    open override var acceptsTouches: Bool { true }

    /// Shows the dialog on a scene with a short grow-in, focusing its first button.
    public func present(on scene: Scene) {
        layout(in: scene.size)
        scene.addSubview(self)
        alpha = 0
        panel.scale = 0.85
        scene.animator.tween(duration: Theme.normal, easing: .backOut) { [weak self] t in
            self?.alpha = min(1, t * 1.5)
            self?.panel.scale = lerp(0.85, 1, t)
        }
        scene.focus(buttons.first)
    }

    public func dismiss() {
        let scene = self.scene
        removeFromSuperview()
        if let scene, scene.focusedView?.root !== scene { scene.focus(nil) }
    }

    func cancel() {
        if let onCancel { dismiss(); onCancel() } else { buttons.last?.activate() }
    }
}

/// A row of tabs; one is selected.
open class TabBar: View {
    public private(set) var tabs: [Button] = []
    public var selectedIndex: Int { didSet { update() } }
    public var onSelect: ((Int) -> Void)?

    public init(titles: [String], icons: [String?] = [], selectedIndex: Int = 0) {
        self.selectedIndex = selectedIndex
        super.init(frame: .zero)
        for (i, t) in titles.enumerated() {
            let b = Button(t, icon: i < icons.count ? icons[i] : nil, kind: .secondary)
            b.action = { [weak self] in
                guard let self else { return }
                self.selectedIndex = i
                self.onSelect?(i)
            }
            tabs.append(b)
            addSubview(b)
        }
        update()
    }

    open override func layoutSubviews() {
        let count = Double(max(1, tabs.count))
        let w = (frame.width - 8 * (count - 1)) / count
        for (i, b) in tabs.enumerated() {
            b.frame = Rect(Double(i) * (w + 8), 0, w, frame.height)
        }
    }

    private func update() {
        for (i, b) in tabs.enumerated() { b.kind = i == selectedIndex ? .primary : .secondary }
    }
}

/// Cells of equal size in rows and columns, with spacing: for option grids, boards, tiles.
public struct GridLayout: Sendable {
    public var columns: Int
    public var rows: Int
    public var spacing: Double

    public init(columns: Int, rows: Int, spacing: Double = 8) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.spacing = spacing
    }

    /// Cell frames row by row, filling `rect`; `square` keeps cells square and centred.
    public func frames(in rect: Rect, square: Bool = false) -> [Rect] {
        var cw = (rect.width - spacing * Double(columns - 1)) / Double(columns)
        var ch = (rect.height - spacing * Double(rows - 1)) / Double(rows)
        if square { cw = min(cw, ch); ch = cw }
        let totalW = cw * Double(columns) + spacing * Double(columns - 1)
        let totalH = ch * Double(rows) + spacing * Double(rows - 1)
        let x0 = rect.minX + (rect.width - totalW) / 2
        let y0 = rect.minY + (rect.height - totalH) / 2
        var out: [Rect] = []
        out.reserveCapacity(columns * rows)
        for r in 0..<rows {
            for c in 0..<columns {
                out.append(Rect(x0 + Double(c) * (cw + spacing), y0 + Double(r) * (ch + spacing), cw, ch))
            }
        }
        return out
    }
}
