import Graphics
import Input
import UI

/// "Update from USB": the bundle on the stick, its version (read by the updater), this
/// cabinet's version, Install (after asking), the progress, and the result.
final class UpdatePage: OperatorPage, UsesUSBSticks {
    let updater: SystemUpdater
    let bundle: String
    private var state = UpdateState.idle
    private let installButton: Button
    private let progress = DrawingView { _, _ in }
    private let status = Label("", style: Theme.body.with(alignment: .left))

    init(controls: OperatorControls, updater: SystemUpdater, bundle: String) {
        self.updater = updater
        self.bundle = bundle
        installButton = Button("", kind: .primary)
        super.init(controls: controls, title: \.updateFromUSB)
        unowned let c = controls
        let words = self.words
        installButton.title = words.install
        let fileRow = SettingRow(name: words.bundleRow, buttons: [])
        fileRow.stacksValue = true
        fileRow.valueLabel.text = UpdatePage.fileName(bundle)
        add(fileRow)
        let versionRow = SettingRow(name: words.bundleVersion, buttons: [installButton])
        add(versionRow) { [weak self, weak versionRow] in
            guard let self else { return }
            versionRow?.valueLabel.text = self.bundleVersionText
            self.installButton.isEnabled = { if case .ready = self.state { return true } else { return false } }()
        }
        let current = SettingRow(name: words.thisCabinet, buttons: [])
        current.valueLabel.shrinksToFit = true
        add(current) { [weak current] in current?.valueLabel.text = words.versionAndSlot(c.systemVersion) }
        progress.drawing = { [weak self] canvas, rect in self?.drawProgress(canvas, rect) }
        add(progress, height: 22) { [weak self] in self?.progress.setNeedsDisplay() }
        // Long reasons (RAUC's own words) wrap over a few lines.
        add(status, height: 110) { [weak self] in self?.showStatus() }
        installButton.action = { [weak self] in self?.askToInstall() }
        if !updater.poll().isBusy { updater.inspect(bundle) }
        state = updater.poll()
        refresh()
    }

    static func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    private var bundleVersionText: String {
        switch state {
        case .ready(_, let v), .installing(_, let v, _, _), .installed(_, let v): return words.shown(v)
        case .inspecting: return words.reading
        case .failed, .idle: return "–"
        }
    }

    private func askToInstall() {
        guard case .ready(_, let version) = state else { return }
        // An older version goes back on fixes (and may not read today's state): only when
        // the operator says so, in words that say what it is.
        let running = controls.systemVersion.version
        let older = SystemVersion.isOlder(version, than: running) == true
        let question = older ? words.downgradeQuestion(version, running: running) : words.installQuestion(version)
        let message = older ? words.downgradeMessage : words.installMessage
        confirm(question, message: message, action: older ? words.downgrade : words.install) { [weak self] in
            guard let self else { return }
            self.updater.install(self.bundle)
            self.state = self.updater.poll()
        }
    }

    private func showStatus() {
        let text: String, color: Color
        switch state {
        case .installing(_, _, let percent, let step): (text, color) = (words.installing(percent, step), Theme.text)
        case .installed(_, let version): (text, color) = (words.installedMessage(version), Theme.accent)
        case .failed(_, let why): (text, color) = (words.updateFailed(why), Theme.error)
        default: (text, color) = ("", Theme.text)
        }
        status.text = text
        status.style = Theme.body.with(color: color, alignment: .left)
    }

    private func drawProgress(_ canvas: Canvas, _ rect: Rect) {
        let percent: Double
        switch state {
        case .installing(_, _, let p, _): percent = Double(p)
        case .installed: percent = 100
        default: return
        }
        let bar = Rect(rect.minX, rect.minY + 4, rect.width, rect.height - 8)
        canvas.fillRoundedRect(bar, radius: bar.height / 2, Theme.surface)
        let filled = Rect(bar.minX, bar.minY, max(bar.height, bar.width * percent / 100), bar.height)
        canvas.fillRoundedRect(filled, radius: bar.height / 2, Theme.accent)
    }

    /// RAUC reads the bundle from the stick while this page shows.
    var usesUSBSticks: Bool { true }
    func sticksMayHaveChanged() {}

    /// Frames come while the updater works; each reads its state once.
    override var isLive: Bool { state.isBusy }

    override func update(dt: Double) {
        guard state.isBusy else { return }
        let now = updater.poll()
        if now != state {
            state = now
            refresh()
        }
    }
}
