import ScreenGeometry
import BeatZombies
import Graphics
import Platform
import Input
import UI
#if canImport(Glibc)
import Glibc
#endif

/// One row of the operator menu: a name, a value, and buttons to change it.
final class SettingRow: View {
    let nameLabel = Label("", style: Theme.body.with(alignment: .left))
    let valueLabel = Label("", style: Theme.body.with(weight: .bold, alignment: .center))
    var buttons: [Button] = []
    /// The value on a line of its own under the name, shrunk to fit (long values such as
    /// opening hours); narrow rows always stack.
    var stacksValue = false { didSet { valueLabel.shrinksToFit = stacksValue && !wrapsValue } }
    /// A stacked value that wraps over the lines the row's height gives it instead of
    /// shrinking (the opening hours: shrunk to one line they were unreadable in portrait).
    var wrapsValue = false {
        didSet {
            valueLabel.shrinksToFit = stacksValue && !wrapsValue
            if wrapsValue { valueLabel.style = valueLabel.style.with(size: 17) }
        }
    }

    init(name: String, buttons: [Button]) {
        super.init(frame: .zero)
        nameLabel.text = name
        addSubview(nameLabel)
        addSubview(valueLabel)
        self.buttons = buttons
        buttons.forEach(addSubview)
    }

    override func layoutSubviews() {
        let h = frame.height
        // Steppers get square-ish buttons, words get room.
        let widths = buttons.map { $0 is OnOffSwitch ? OnOffSwitch.width : $0.title.count > 2 ? 120.0 : 64.0 }
        var x = frame.width - widths.reduce(0) { $0 + $1 + 8 }
        if x < 240 || stacksValue {
            // Narrow (portrait): the name over its value.
            let nameHeight = wrapsValue ? min(h / 2, 28) : h / 2
            nameLabel.frame = Rect(0, 0, x - 8, nameHeight)
            valueLabel.frame = Rect(0, nameHeight, x - 8, h - nameHeight)
        } else {
            nameLabel.frame = Rect(0, 0, x * 0.55, h)
            valueLabel.frame = Rect(x * 0.55, 0, x * 0.45 - 8, h)
        }
        // A tall row (wrapped hours) keeps buttons of the usual height, centred.
        let buttonHeight = min(h - 4, 52)
        for (b, bw) in zip(buttons, widths) {
            b.frame = Rect(x, (h - buttonHeight) / 2, bw, buttonHeight)
            x += bw + 8
        }
    }
}

/// The operator menu: sound and screen, games, service. Every change applies at once.
public final class OperatorScene: Scene, UsesUSBSticks {
    /// Unowned, as is every closure's `c` below: the owner (the kiosk) holds the scene
    /// while it is on screen, and only its events reach the scene, so the scene never
    /// outlives it; held strongly, a kiosk freed with its menu on screen kept both alive.
    unowned let controls: OperatorControls
    public var onClose: (() -> Void)?
    /// The language was switched: the owner rebuilds the menu in the new one.
    public var onLanguageChange: (() -> Void)?
    private let words: OperatorWords
    private let tabs: TabBar
    private let close: Button
    private var pages: [View] = [View(), View(), View(), View()]
    private var rows: [[View]] = [[], [], [], []]
    private var refreshers: [() -> Void] = []
    /// Over every page while the state partition takes no writes.
    private let stateWarning = Label("", style: Theme.caption.with(weight: .bold, color: .white))

    public init(controls: OperatorControls) {
        self.controls = controls
        words = OperatorWords(controls.language)
        tabs = TabBar(titles: [words.screenTab, words.gamesTab, words.serviceTab, words.systemTab])
        close = OperatorPage.doneButton(words)
        super.init()
        backgroundColor = Theme.background
        addSubview(tabs)
        addSubview(close)
        close.action = { [weak self] in self?.onClose?() }
        pages.forEach(addSubview)
        stateWarning.shrinksToFit = true
        stateWarning.backgroundColor = Theme.error
        addSubview(stateWarning)
        refreshers.append { [weak self, words] in
            guard let self else { return }
            self.stateWarning.text = self.controls.stateIsWritable ? "" : words.stateNotWritable
            self.stateWarning.isHidden = self.controls.stateIsWritable
        }
        tabs.onSelect = { [weak self] i in self?.show(page: i) }
        buildScreenPage()
        buildGamesPage()
        buildServicePage()
        buildSystemPage()
        show(page: 0)
        refresh()
    }

    public override func handleBack() { onClose?() }

    private func stepper(_ name: String, page: Int, value: @escaping () -> String,
                         minus: @escaping () -> Void, plus: @escaping () -> Void) {
        let m = Button("−", kind: .secondary) { [weak self] in minus(); self?.refresh() }
        let p = Button("+", kind: .secondary) { [weak self] in plus(); self?.refresh() }
        let row = SettingRow(name: name, buttons: [m, p])
        refreshers.append { row.valueLabel.text = value() }
        add(row, page: page)
    }

    private func add(_ row: View, page: Int) {
        rows[page].append(row)
        pages[page].addSubview(row)
    }

    private func buildScreenPage() {
        unowned let c = controls
        let words = self.words
        stepper(words.volume, page: 0, value: { "\(c.volume)%" },
                minus: { c.volume = max(0, c.volume - 10) }, plus: { c.volume = min(100, c.volume + 10) })
        stepper(words.brightness, page: 0, value: { c.brightness.map { "\($0)%" } ?? words.notAvailable },
                minus: { if let b = c.brightness { c.brightness = max(10, b - 10) } },
                plus: { if let b = c.brightness { c.brightness = min(100, b + 10) } })
        stepper(words.rotation, page: 0, value: { "\(c.rotation.rawValue)°" },
                minus: { c.rotation = c.rotation.turned(by: -90) }, plus: { c.rotation = c.rotation.turned(by: 90) })
        let lang = Button(words.switchLanguage, kind: .secondary)
        let langRow = SettingRow(name: words.languageRow, buttons: [lang])
        lang.action = { [weak self] in
            c.language = c.language == .english ? .chinese : .english
            self?.onLanguageChange?()
        }
        refreshers.append { langRow.valueLabel.text = c.language == .english ? "English" : "中文" }
        add(langRow, page: 0)
        let cal = Button(words.go, kind: .secondary) { c.startCalibration() }
        add(SettingRow(name: words.touchCalibration, buttons: [cal]), page: 0)
    }

    private func buildGamesPage() {
        unowned let c = controls
        let words = self.words
        for game in c.games {
            let toggle = OnOffSwitch(words: words)
            let row = SettingRow(name: game.name, buttons: [toggle])
            toggle.action = { [weak self] in
                let on = c.games.first { $0.id == game.id }?.enabled ?? true
                c.setGame(game.id, enabled: !on)
                self?.refresh()
            }
            refreshers.append {
                toggle.isOn = c.games.first { $0.id == game.id }?.enabled ?? true
            }
            add(row, page: 1)
        }
        if c.games.contains(where: { $0.id == GameDescriptor.beatZombies.id }) {
            // Easiest first: − makes the game gentler, + harder. Each keeps its own tables.
            let levels: [BeatZombiesDifficulty] = [.gentle, .arcade, .classic]
            let key = BeatZombiesScene.difficultyKey
            func current() -> Int { levels.firstIndex { $0.rawValue == c.value(of: key) } ?? 1 }
            stepper(words.zombiesDifficulty, page: 1, value: { levels[current()].names[words.language] ?? "" },
                    minus: { c.change(key, to: levels[max(0, current() - 1)].rawValue) },
                    plus: { c.change(key, to: levels[min(levels.count - 1, current() + 1)].rawValue) })
        }
        stepper(words.idleToMenu, page: 1, value: { words.seconds(c.idleToMenuSeconds) },
                minus: { c.idleToMenuSeconds = max(15, c.idleToMenuSeconds - 15) },
                plus: { c.idleToMenuSeconds = min(600, c.idleToMenuSeconds + 15) })
        stepper(words.menuToAttract, page: 1, value: { words.seconds(c.menuToAttractSeconds) },
                minus: { c.menuToAttractSeconds = max(15, c.menuToAttractSeconds - 15) },
                plus: { c.menuToAttractSeconds = min(600, c.menuToAttractSeconds + 15) })
    }


    private func buildServicePage() {
        unowned let c = controls
        let words = self.words
        let tables = Button(words.tables, kind: .secondary) { c.showPage(.highScores) }
        add(SettingRow(name: words.highScores, buttons: [tables]), page: 2)
        let coins = Button(words.set, kind: .secondary) { c.showPage(.coins) }
        add(SettingRow(name: words.coinsAndCredits, buttons: [coins]), page: 2)
        let books = Button(words.open, kind: .secondary) { c.showPage(.books) }
        add(SettingRow(name: words.bookkeeping, buttons: [books]), page: 2)
        let care = Button(words.set, kind: .secondary) { c.showPage(.screenCare) }
        add(SettingRow(name: words.screenCare, buttons: [care]), page: 2)
        let sound = Button(words.set, kind: .secondary) { c.showPage(.sound) }
        add(SettingRow(name: words.soundLimits, buttons: [sound]), page: 2)
        let exit = Button(words.exit, kind: .secondary)
        exit.action = { [weak self] in
            guard let self else { return }
            Dialog(title: words.exitQuestion, message: words.exitMessage,
                   buttons: [(words.exit, .primary, { c.exitToConsole() }), (words.restart, .secondary, { c.restartKiosk() }),
                             (words.cancel, .secondary, {})]).present(on: self)
        }
        add(SettingRow(name: words.exitToConsole, buttons: [exit]), page: 2)
    }

    /// The image's version and slot, and "Update from USB" when a stick holds a bundle
    /// (looked for each time the tab shows).
    private func buildSystemPage() {
        unowned let c = controls
        let words = self.words
        let version = SettingRow(name: words.versionRow, buttons: [])
        version.valueLabel.text = words.versionAndSlot(c.systemVersion)
        version.valueLabel.shrinksToFit = true
        add(version, page: 3)
        let image = SettingRow(name: words.imageRow, buttons: [])
        image.valueLabel.text = words.shown(c.systemVersion.imageID)
        image.valueLabel.shrinksToFit = true
        add(image, page: 3)
        let update = Button(words.update, kind: .secondary)
        let updateRow = SettingRow(name: words.updateFromUSB, buttons: [update])
        updateRow.stacksValue = true
        var bundle: String?
        update.action = { if let bundle { c.showPage(.update(bundle: bundle)) } }
        refreshers.append { [weak self] in
            guard let self, self.tabs.selectedIndex == 3, self.bundleLookup == nil else { return }
            self.bundleLookup = c.findBundles()
            self.showBundle = { found in
                bundle = found
                updateRow.valueLabel.text = found.map(UpdatePage.fileName) ?? words.noBundle
                update.isEnabled = found != nil
            }
            self.takeBundleLookup()
        }
        add(updateRow, page: 3)
    }

    /// The System tab's look for bundles while it runs (`findBundles`), and what shows it.
    private var bundleLookup: BackgroundResult<[String]>?
    private var showBundle: ((String?) -> Void)?

    private func takeBundleLookup() {
        guard let found = bundleLookup?.value else { return }
        bundleLookup = nil
        showBundle?(found.first)
    }

    public override var isLive: Bool { bundleLookup != nil }

    /// The System tab looks for bundles; sticks are mounted only while it shows.
    var usesUSBSticks: Bool { tabs.selectedIndex == 3 }

    func sticksMayHaveChanged() {
        if tabs.selectedIndex == 3 { refresh() }
    }

    public override func update(dt: Double) {
        if bundleLookup != nil { takeBundleLookup() }
    }

    public func refresh() { refreshers.forEach { $0() } }

    private func show(page: Int) {
        for (i, p) in pages.enumerated() { p.isHidden = i != page }
        tabs.selectedIndex = page
        refresh()
    }

    public override func layout() {
        tabs.frame = Rect(16, 14, size.width - 32 - 130, 52)
        close.frame = Rect(size.width - 136, 14, 120, 52)
        stateWarning.frame = Rect(0, size.height - 28, size.width, 28)
        for (i, p) in pages.enumerated() {
            p.frame = Rect(24, 82, size.width - 48, size.height - 94)
            // 56-point rows 8 apart; a page with more rows than that fits shares the height
            // (never under 44 points, a finger's target).
            let pitch = max(52, min(64, p.frame.height / Double(max(1, rows[i].count))))
            var y = 0.0
            for row in rows[i] {
                row.frame = Rect(0, y, p.frame.width, pitch - 8)
                y += pitch
            }
        }
    }
}
