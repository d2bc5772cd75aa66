import Graphics
import Platform
import Input
import UI

/// The operator pages behind the Service tab.
public enum OperatorPageKind: Sendable, Equatable {
    case highScores, coins, books, screenCare, sound
    /// "Update from USB" for the bundle at this path.
    case update(bundle: String)
}

/// Coins and credits: free play or credits, the price of a play and of a credit, the
/// credits on the meter now.
final class CoinsPage: OperatorPage {
    init(controls: OperatorControls) {
        super.init(controls: controls, title: \.coinsAndCredits)
        unowned let c = controls
        let words = self.words
        let switchMode = Button(words.switchMode, kind: .secondary)
        let modeRow = SettingRow(name: words.playMode, buttons: [switchMode])
        switchMode.action = { [weak self] in
            c.playMode = c.playMode == .free ? .credits : .free
            self?.refresh()
        }
        add(modeRow) { [weak modeRow] in modeRow?.valueLabel.text = c.playMode == .free ? words.freePlay : words.creditsMode }
        stepper(words.creditsPerPlay, value: { "\(c.creditsPerPlay)" },
                minus: { c.creditsPerPlay = max(1, c.creditsPerPlay - 1) }, plus: { c.creditsPerPlay = min(9, c.creditsPerPlay + 1) })
        stepper(words.coinsPerCredit, value: { "\(c.coinsPerCredit)" },
                minus: { c.coinsPerCredit = max(1, c.coinsPerCredit - 1) }, plus: { c.coinsPerCredit = min(20, c.coinsPerCredit + 1) })
        let creditsRow = SettingRow(name: words.creditsNow, buttons: [])
        add(creditsRow) { [weak creditsRow] in creditsRow?.valueLabel.text = "\(c.credits)" }
        refresh()
    }
}

/// The books: every counter in two columns, Export to a USB stick, Reset (after asking).
final class BooksPage: OperatorPage, UsesUSBSticks {
    private let table = DrawingView { _, _ in }
    private let status = Label("", style: Theme.caption.with(alignment: .left))

    init(controls: OperatorControls) {
        super.init(controls: controls, title: \.bookkeeping)
        unowned let c = controls
        let words = self.words
        table.drawing = { [weak self] canvas, rect in self?.drawTable(canvas, rect) }
        add(table, height: 0) { [weak self] in self?.table.setNeedsDisplay() }
        let export = Button(words.exportUSB, kind: .secondary)
        export.action = { [weak self] in
            guard let self, self.exporting == nil else { return }
            self.show(words.exporting, error: false)
            self.exporting = c.exportBooks()
            self.takeExport()
        }
        let reset = Button(words.reset, kind: .secondary)
        reset.action = { [weak self] in
            self?.confirm(words.resetBooksQuestion, message: words.resetBooksMessage, action: words.reset) { c.resetBooks() }
        }
        add(SettingRow(name: words.books, buttons: [export, reset]))
        add(status, height: 24)
        refresh()
    }

    /// The export while it writes (off the run loop).
    private var exporting: BackgroundResult<Result<String, Bookkeeping.Problem>>?

    private func takeExport() {
        guard let result = exporting?.value else { return }
        exporting = nil
        switch result {
        case .success(let path): show(words.exported(path), error: false)
        case .failure(let problem): show(words.exportFailed(problem.description), error: true)
        }
    }

    override var isLive: Bool { exporting != nil }

    /// Export writes to a stick: sticks are mounted while this page shows.
    var usesUSBSticks: Bool { true }
    func sticksMayHaveChanged() {}

    override func update(dt: Double) {
        super.update(dt: dt)
        if exporting != nil { takeExport() }
    }

    private func show(_ text: String, error: Bool) {
        status.text = text
        status.style = Theme.caption.with(color: error ? Theme.error : Theme.textDim, alignment: .left)
    }

    /// The counters as label: value lines, games first, in two columns.
    func lines() -> [(String, String)] {
        let books = controls.books
        var out: [(String, String)] = []
        for (id, name) in controls.games.map({ ($0.id, $0.name) }) {
            let rows = books.rows.filter { $0.game == id }
            let value = { (item: String) in rows.first { $0.item == item }?.value ?? 0 }
            out.append((name, words.playsSummary(plays: value("plays"), seconds: value("play_time_seconds"),
                                                  average: value("average_game_seconds"))))
        }
        for row in books.rows where row.game.isEmpty {
            let value: String
            switch row.item {
            case "uptime_seconds": value = words.duration(row.value)
            case "last_reset": value = row.value > 0 ? Bookkeeping.dateText(row.value) : words.never
            default: value = String(row.value)
            }
            out.append((words.counterName(row.item), value))
        }
        return out
    }

    private func drawTable(_ canvas: Canvas, _ rect: Rect) {
        let all = lines()
        let games = all.prefix(controls.games.count)
        let rest = Array(all.dropFirst(controls.games.count))
        let fonts = UIEnvironment.fonts
        let portrait = rect.width < 600
        let lineHeight = 22.0
        let nameStyle = TextStyle(size: 15, color: Theme.textDim, alignment: .left)
        let valueStyle = TextStyle(size: 15, weight: .bold, color: Theme.text, alignment: .left)
        var y = rect.minY
        for (name, value) in games {
            let nameWidth = portrait ? rect.width * 0.34 : 160
            canvas.drawText(name, in: Rect(rect.minX, y, nameWidth, lineHeight), style: nameStyle, fonts: fonts, wrap: false)
            canvas.drawText(value, in: Rect(rect.minX + nameWidth, y, rect.width - nameWidth, lineHeight), style: valueStyle,
                            fonts: fonts, wrap: false)
            y += lineHeight
        }
        y += 8
        let columns = portrait ? 1 : 2
        let columnWidth = rect.width / Double(columns)
        let perColumn = (rest.count + columns - 1) / columns
        for (i, (name, value)) in rest.enumerated() {
            let x = rect.minX + Double(i / perColumn) * columnWidth
            let rowY = y + Double(i % perColumn) * lineHeight
            canvas.drawText(name, in: Rect(x, rowY, columnWidth * 0.55, lineHeight), style: nameStyle, fonts: fonts, wrap: false)
            canvas.drawText(value, in: Rect(x + columnWidth * 0.55, rowY, columnWidth * 0.45 - 8, lineHeight),
                            style: valueStyle, fonts: fonts, wrap: false)
        }
    }

    /// The table takes what the buttons and the status line leave.
    override func layout() {
        let portrait = size.width < 600
        let lines = controls.games.count + (portrait ? 9 : 5)
        rowHeights[ObjectIdentifier(table)] = Double(lines) * 22 + 8
        super.layout()
    }
}

/// Screen care and opening hours: dim and off after idle minutes, the pixel shift, the
/// hours (a few common choices and whatever the config says) and the closed card.
final class ScreenCarePage: OperatorPage {
    static let minuteSteps = [0, 1, 2, 5, 10, 15, 30, 60, 120]
    static let hourChoices = ["always", "09:00-21:00", "10:00-22:00", "08:00-20:00", "11:00-23:00",
                              "mon-fri 09:00-18:00, sat+sun 10:00-20:00"]

    init(controls: OperatorControls) {
        super.init(controls: controls, title: \.screenCare)
        unowned let c = controls
        let words = self.words
        func minutes(_ name: String, _ key: String) {
            stepper(name, value: { words.minutesOrNever(Int(c.value(of: key)) ?? 0) },
                    minus: { c.change(key, to: String(Self.step(Int(c.value(of: key)) ?? 0, by: -1))) },
                    plus: { c.change(key, to: String(Self.step(Int(c.value(of: key)) ?? 0, by: 1))) })
        }
        minutes(words.dimAfter, SettingKey.displayDimAfter)
        minutes(words.offAfter, SettingKey.displayOffAfter)
        toggle(words.pixelShift, SettingKey.displayPixelShift)
        let previous = Button("◀", kind: .secondary) { [weak self] in self?.stepHours(-1) }
        let next = Button("▶", kind: .secondary) { [weak self] in self?.stepHours(1) }
        let hoursRow = SettingRow(name: words.openingHours, buttons: [previous, next])
        hoursRow.stacksValue = true
        hoursRow.wrapsValue = true
        add(hoursRow, height: 96) { [weak hoursRow] in
            let text = c.value(of: SettingKey.kioskHours)
            hoursRow?.valueLabel.text = words.hours(text)
        }
        toggle(words.closedCard, SettingKey.kioskClosedCard)
        refresh()
    }

    /// The next of `minuteSteps` up or down from `value`.
    static func step(_ value: Int, by direction: Int) -> Int {
        if direction > 0 { return minuteSteps.first { $0 > value } ?? minuteSteps.last! }
        return minuteSteps.last { $0 < value } ?? 0
    }

    private func stepHours(_ by: Int) {
        var choices = Self.hourChoices
        let now = controls.value(of: SettingKey.kioskHours)
        if !choices.contains(now) { choices.append(now) }
        let i = choices.firstIndex(of: now) ?? 0
        controls.change(SettingKey.kioskHours, to: choices[(i + by + choices.count) % choices.count])
        refresh()
    }

    private func toggle(_ name: String, _ key: String) {
        unowned let c = controls
        let words = self.words
        let button = OnOffSwitch(words: words)
        let row = SettingRow(name: name, buttons: [button])
        button.action = { [weak self] in
            c.change(key, to: c.value(of: key) == "true" ? "false" : "true")
            self?.refresh()
        }
        add(row) { [weak button] in button?.isOn = c.value(of: key) == "true" }
    }
}

/// Sound limits: the highest volume the operator menu (and anyone) can set, and the share
/// of it the attract mode plays at.
final class SoundPage: OperatorPage {
    init(controls: OperatorControls) {
        super.init(controls: controls, title: \.soundLimits)
        unowned let c = controls
        let words = self.words
        func percent(_ name: String, _ key: String) {
            stepper(name, value: { "\(c.value(of: key))%" },
                    minus: { c.change(key, to: String(max(0, (Int(c.value(of: key)) ?? 0) - 10))) },
                    plus: { c.change(key, to: String(min(100, (Int(c.value(of: key)) ?? 0) + 10))) })
        }
        percent(words.volumeMax, SettingKey.audioVolumeMax)
        percent(words.attractVolume, SettingKey.audioAttractVolume)
        refresh()
    }
}
