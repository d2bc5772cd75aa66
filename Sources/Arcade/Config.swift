#if canImport(Glibc)
import Glibc
#endif
import Graphics
import Platform

// Configuration: defaults, then the board profile, then /etc/boardwalk/boardwalk.conf,
// then the command line, each overriding the one before. Files are `key = value` lines
// under `[section]` headers, `#` starts a comment. A bad line is a warning naming the
// file and line; the setting keeps its earlier value and the kiosk starts anyway.

/// Every setting the kiosk reads at start, typed, with the defaults a board without a
/// profile gets.
public struct Settings: Equatable, Sendable {
    public struct Display: Equatable, Sendable {
        /// A DRM card node (/dev/dri/card1); nil: the first card that can show a picture.
        public var card: String? = nil
        /// A connector as the kernel names it ("HDMI-A-1", "DSI-1"); nil: the first connected.
        public var connector: String? = nil
        /// "1280x800" or "1280x800@60"; nil: the preferred mode, else the largest.
        /// Headless runs use it as the screen size.
        public var mode: String? = nil
        /// 0, 90, 180 or 270 degrees clockwise.
        public var rotation: Int = 0
        /// .xrgb8888 or .rgb565; nil: the driver's preferred depth.
        public var format: PixelFormat? = nil
        /// Backlight level in percent at start; nil leaves it as the firmware set it.
        public var brightness: Int? = nil
        /// The VT the kiosk owns; nil runs without one (tests, headless).
        public var tty: String? = "/dev/tty1"
        public init() {}
    }

    public struct Touch: Equatable, Sendable {
        /// An evdev node (/dev/input/event3) or a device name as the kernel reports it
        /// ("QEMU Virtio Tablet"); nil: every device with touch capability.
        public var device: String? = nil
        /// libinput's LIBINPUT_CALIBRATION_MATRIX: a b c d e f on normalized coordinates.
        public var calibration: [Double] = Calibration.identity
        public var swapXY = false
        public var invertX = false
        public var invertY = false
        public init() {}
    }

    public struct Audio: Equatable, Sendable {
        /// The ALSA PCM name ("default", "hw:0,0", "plughw:CARD=vc4hdmi").
        public var pcm = "default"
        /// The mixer controls unmuted and set at start, in order ("Master", "PCM": some
        /// cards, AC97 among them, need both); empty: leave the mixer alone.
        public var mixerControls: [String] = []
        /// The first of `mixerControls`; setting it replaces the list.
        public var mixerControl: String? {
            get { mixerControls.first }
            set { mixerControls = newValue.map { [$0] } ?? [] }
        }
        /// Frames per ALSA period at 48 kHz: 480 is 10 ms; Pi HDMI wants ~2400.
        public var periodFrames = 256
        public var bufferPeriods = 4
        /// Master volume in percent.
        public var volume = 80
        /// Where an operator's replacement sounds are: files named after a sound or tune
        /// ("zombieHit.wav", "menu.ogg"; `boardwalk sound-export` lists the names).
        public var soundsDir = "/etc/boardwalk/sounds"
        public init() {}
    }

    public enum Language: String, Equatable, Sendable, CaseIterable {
        case en, zh
    }

    public struct Kiosk: Equatable, Sendable {
        /// Game identifiers, in menu order.
        public static let allGames = ["beat_zombies", "guess_picture", "2048", "memory"]

        public var language = Language.en
        public var enabledGames = Kiosk.allGames
        /// No input for this long in a game: back to the menu. 0: never.
        public var idleToMenuSeconds = 90
        /// This long idle in the menu: the attract mode. 0: never.
        public var menuToAttractSeconds = 60
        /// How long the attract mode shows each game before the next.
        public var attractSecondsPerGame = 30
        /// Digits only; images should set their own.
        public var operatorPIN = "1234"
        public var stateDir = "/var/lib/boardwalk"
        public var dataDir = "/usr/share/boardwalk"
        /// A board profile name (looked up under <data_dir>/boards) or a path; nil: none.
        public var board: String? = nil
        public init() {}
    }

    public var display = Display()
    public var touch = Touch()
    public var audio = Audio()
    public var kiosk = Kiosk()

    public init() {}

    /// Every key a file, `--set` or the operator's saved settings may name.
    public static var keys: [String] { Settings.table.map(\.key) }
    public static let sections = ["display", "touch", "audio", "kiosk"]

    /// Sets one setting from its text form. Returns nil on success, else why the value
    /// was refused (the setting is then unchanged).
    public mutating func apply(key: String, value: String) -> String? {
        guard let entry = Settings.table.first(where: { $0.key == key }) else {
            return "unknown key"
        }
        return entry.set(&self, value)
    }

    /// The text form of one setting, as a file would spell it; nil for an unknown key.
    public func value(for key: String) -> String? {
        Settings.table.first(where: { $0.key == key })?.get(self)
    }

    /// All settings as a config file (for `--print-config` and the operator's view).
    public func rendered() -> String {
        var text = ""
        var section = ""
        for entry in Settings.table {
            let (head, name) = Settings.split(entry.key)
            if head != section {
                text += (text.isEmpty ? "" : "\n") + "[\(head)]\n"
                section = head
            }
            text += "\(name) = \(entry.get(self))\n"
        }
        return text
    }

    static func split(_ key: String) -> (section: String, name: String) {
        guard let dot = key.firstIndex(of: ".") else { return ("", key) }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }

    private struct Entry: Sendable {
        let key: String
        let get: @Sendable (Settings) -> String
        let set: @Sendable (inout Settings, String) -> String?
    }

    private static let table: [Entry] = [
        Entry(key: "display.card", get: { $0.display.card ?? "auto" }) { s, v in
            Parse.optionalPath(v).map { s.display.card = $0 } == nil ? "expected auto or a /dev path" : nil
        },
        Entry(key: "display.connector", get: { $0.display.connector ?? "auto" }) { s, v in
            guard let name = Parse.optionalWord(v) else { return "expected auto or a connector name such as HDMI-A-1" }
            s.display.connector = name
            return nil
        },
        Entry(key: "display.mode", get: { $0.display.mode ?? "auto" }) { s, v in
            if v == "auto" { s.display.mode = nil; return nil }
            guard Parse.mode(v) != nil else { return "expected auto, WIDTHxHEIGHT or WIDTHxHEIGHT@HZ" }
            s.display.mode = v
            return nil
        },
        Entry(key: "display.rotation", get: { String($0.display.rotation) }) { s, v in
            guard let degrees = Int(v), [0, 90, 180, 270].contains(degrees) else {
                return "must be 0, 90, 180 or 270"
            }
            s.display.rotation = degrees
            return nil
        },
        Entry(key: "display.format", get: { $0.display.format?.rawValue ?? "auto" }) { s, v in
            switch v {
            case "auto": s.display.format = nil
            case "xrgb8888": s.display.format = .xrgb8888
            case "rgb565": s.display.format = .rgb565
            default: return "must be auto, xrgb8888 or rgb565"
            }
            return nil
        },
        Entry(key: "display.brightness", get: { $0.display.brightness.map(String.init) ?? "auto" }) { s, v in
            if v == "auto" { s.display.brightness = nil; return nil }
            guard let percent = Int(v), (Backlight.minimumPercent...100).contains(percent) else {
                return "must be auto or \(Backlight.minimumPercent) to 100 (percent)"
            }
            s.display.brightness = percent
            return nil
        },
        Entry(key: "display.tty", get: { $0.display.tty ?? "none" }) { s, v in
            if v == "none" { s.display.tty = nil; return nil }
            guard v.hasPrefix("/dev/") else { return "expected none or a /dev/tty path" }
            s.display.tty = v
            return nil
        },
        Entry(key: "touch.device", get: { $0.touch.device ?? "auto" }) { s, v in
            guard !v.isEmpty else { return "expected auto, a /dev/input path or a device name" }
            s.touch.device = v == "auto" ? nil : v
            return nil
        },
        Entry(key: "touch.calibration", get: { $0.touch.calibration.map(Parse.number).joined(separator: " ") }) { s, v in
            guard let matrix = Parse.numbers(v), matrix.count == 6 else { return "expected 6 numbers (a b c d e f)" }
            guard matrix[0] * matrix[4] - matrix[1] * matrix[3] != 0 else { return "the matrix is singular" }
            s.touch.calibration = matrix
            return nil
        },
        Entry(key: "touch.swap_xy", get: { String($0.touch.swapXY) }) { s, v in
            Parse.bool(v).map { s.touch.swapXY = $0 } == nil ? Parse.boolHelp : nil
        },
        Entry(key: "touch.invert_x", get: { String($0.touch.invertX) }) { s, v in
            Parse.bool(v).map { s.touch.invertX = $0 } == nil ? Parse.boolHelp : nil
        },
        Entry(key: "touch.invert_y", get: { String($0.touch.invertY) }) { s, v in
            Parse.bool(v).map { s.touch.invertY = $0 } == nil ? Parse.boolHelp : nil
        },
        Entry(key: "audio.pcm", get: { $0.audio.pcm }) { s, v in
            guard !v.isEmpty, !v.contains(where: { $0 == " " || $0 == "\t" }) else { return "expected an ALSA PCM name" }
            s.audio.pcm = v
            return nil
        },
        Entry(key: "audio.mixer_control", get: {
            $0.audio.mixerControls.isEmpty ? "none" : $0.audio.mixerControls.joined(separator: ", ")
        }) { s, v in
            // Comma-separated: simple control names may hold spaces ("Speaker Playback").
            let names = v.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
            s.audio.mixerControls = names == ["none"] ? [] : names
            return nil
        },
        Entry(key: "audio.period_frames", get: { String($0.audio.periodFrames) }) { s, v in
            Parse.int(v, 32...16384).map { s.audio.periodFrames = $0 } == nil ? "must be 32 to 16384" : nil
        },
        Entry(key: "audio.buffer_periods", get: { String($0.audio.bufferPeriods) }) { s, v in
            Parse.int(v, 2...16).map { s.audio.bufferPeriods = $0 } == nil ? "must be 2 to 16" : nil
        },
        Entry(key: "audio.volume", get: { String($0.audio.volume) }) { s, v in
            Parse.int(v, 0...100).map { s.audio.volume = $0 } == nil ? "must be 0 to 100 (percent)" : nil
        },
        Entry(key: "audio.sounds_dir", get: { $0.audio.soundsDir }) { s, v in
            guard v.hasPrefix("/") else { return "expected an absolute directory path" }
            s.audio.soundsDir = v
            return nil
        },
        Entry(key: "kiosk.language", get: { $0.kiosk.language.rawValue }) { s, v in
            guard let language = Language(rawValue: v) else { return "must be en or zh" }
            s.kiosk.language = language
            return nil
        },
        Entry(key: "kiosk.enabled_games", get: { $0.kiosk.enabledGames.joined(separator: ", ") }) { s, v in
            let names = Parse.list(v)
            let unknown = names.filter { !Kiosk.allGames.contains($0) }
            if !unknown.isEmpty {
                return "unknown game \(unknown.joined(separator: ", ")) (known: \(Kiosk.allGames.joined(separator: ", ")))"
            }
            if names.isEmpty { return "at least one game must stay enabled" }
            var seen: [String] = []
            for name in names where !seen.contains(name) { seen.append(name) }
            s.kiosk.enabledGames = seen
            return nil
        },
        Entry(key: "kiosk.idle_to_menu_seconds", get: { String($0.kiosk.idleToMenuSeconds) }) { s, v in
            Parse.timeout(v).map { s.kiosk.idleToMenuSeconds = $0 } == nil ? Parse.timeoutHelp : nil
        },
        Entry(key: "kiosk.menu_to_attract_seconds", get: { String($0.kiosk.menuToAttractSeconds) }) { s, v in
            Parse.timeout(v).map { s.kiosk.menuToAttractSeconds = $0 } == nil ? Parse.timeoutHelp : nil
        },
        Entry(key: "kiosk.attract_seconds_per_game", get: { String($0.kiosk.attractSecondsPerGame) }) { s, v in
            Parse.int(v, 5...3600).map { s.kiosk.attractSecondsPerGame = $0 } == nil ? "must be 5 to 3600" : nil
        },
        Entry(key: "kiosk.operator_pin", get: { $0.kiosk.operatorPIN }) { s, v in
            guard (4...8).contains(v.count), v.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return "must be 4 to 8 digits"
            }
            s.kiosk.operatorPIN = v
            return nil
        },
        Entry(key: "kiosk.state_dir", get: { $0.kiosk.stateDir }) { s, v in
            guard !v.isEmpty else { return "expected a directory" }
            s.kiosk.stateDir = v
            return nil
        },
        Entry(key: "kiosk.data_dir", get: { $0.kiosk.dataDir }) { s, v in
            guard !v.isEmpty else { return "expected a directory" }
            s.kiosk.dataDir = v
            return nil
        },
        Entry(key: "kiosk.board", get: { $0.kiosk.board ?? "none" }) { s, v in
            s.kiosk.board = (v.isEmpty || v == "none") ? nil : v
            return nil
        },
    ]
}

/// Value parsers shared by the table above (and usable by the operator menu).
enum Parse {
    static let boolHelp = "expected true or false"
    static let timeoutHelp = "must be 0 (never) or 5 to 86400 seconds"

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: return nil
        }
    }

    static func int(_ text: String, _ range: ClosedRange<Int>) -> Int? {
        guard let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    static func timeout(_ text: String) -> Int? {
        guard let value = Int(text), value == 0 || (5...86400).contains(value) else { return nil }
        return value
    }

    /// "auto" -> .some(nil); "/dev/..." -> .some(path); anything else -> nil.
    static func optionalPath(_ text: String) -> String?? {
        if text == "auto" { return .some(nil) }
        return text.hasPrefix("/") ? .some(text) : nil
    }

    static func optionalWord(_ text: String) -> String?? {
        if text == "auto" { return .some(nil) }
        guard !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
        return .some(text)
    }

    /// "1280x800" or "1280x800@60".
    static func mode(_ text: String) -> (width: Int, height: Int, refresh: Int?)? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
              (1...16384).contains(width), (1...16384).contains(height) else { return nil }
        var refresh: Int?
        if parts.count == 2 {
            guard let hz = Int(parts[1]), (1...1000).contains(hz) else { return nil }
            refresh = hz
        }
        return (width, height, refresh)
    }

    /// Numbers separated by spaces and/or commas.
    static func numbers(_ text: String) -> [Double]? {
        var values: [Double] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) {
            guard let value = Double(word), value.isFinite else { return nil }
            values.append(value)
        }
        return values
    }

    /// Comma- or space-separated words.
    static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
    }

    /// Short and exact: "1", "0.5", "-12.25".
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}

/// A problem found while reading the configuration, with where it was found.
public struct ConfigDiagnostic: Equatable, Sendable, CustomStringConvertible {
    public enum Level: Sendable { case warning, notice }
    public var level: Level
    /// A file path, or "command line".
    public var origin: String
    /// 1-based; nil for whole-file problems and command-line arguments.
    public var line: Int?
    public var message: String

    public init(_ level: Level, origin: String, line: Int? = nil, _ message: String) {
        self.level = level
        self.origin = origin
        self.line = line
        self.message = message
    }

    public var description: String {
        "\(origin)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}

/// One `key = value` assignment and where it came from.
public struct ConfigEntry: Equatable, Sendable {
    /// "section.key", lower case.
    public var key: String
    public var value: String
    public var origin: String
    public var line: Int?
}

/// Reads the `key = value` with `[sections]` format.
public enum ConfigFile {
    /// Splits a file's text into assignments; malformed lines become warnings.
    /// Only syntax is checked here: keys and values are checked when applied.
    public static func parse(_ text: String, origin: String) -> (entries: [ConfigEntry], diagnostics: [ConfigDiagnostic]) {
        var entries: [ConfigEntry] = []
        var diagnostics: [ConfigDiagnostic] = []
        var section: String?
        var number = 0
        // "\r\n" is one Character in Swift: split on both so CRLF files work.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = stripComment(String(rawLine)).trimmed
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    diagnostics.append(.init(.warning, origin: origin, line: number,
                                             "malformed section header \(quoted(line)); expected [name]"))
                    section = nil
                    continue
                }
                section = String(line.dropFirst().dropLast()).trimmed.lowercased()
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                diagnostics.append(.init(.warning, origin: origin, line: number,
                                         "expected key = value, found \(quoted(line)); ignored"))
                continue
            }
            let name = String(line[..<equals]).trimmed.lowercased()
            var value = String(line[line.index(after: equals)...]).trimmed
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard !name.isEmpty else {
                diagnostics.append(.init(.warning, origin: origin, line: number, "a value without a key; ignored"))
                continue
            }
            let key: String
            if let section {
                key = section + "." + name
            } else if name.contains(".") {
                key = name
            } else {
                diagnostics.append(.init(.warning, origin: origin, line: number,
                                         "key \(quoted(name)) is outside any [section]; ignored"))
                continue
            }
            entries.append(ConfigEntry(key: key, value: value, origin: origin, line: number))
        }
        return (entries, diagnostics)
    }

    /// `#` starts a comment at the start of a line or after whitespace, so values such
    /// as colours ("#202020") written without a space still work.
    static func stripComment(_ line: String) -> String {
        var previous: Character = " "
        var inQuotes = false
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if character == "#" && !inQuotes && (previous == " " || previous == "\t") {
                return String(line[..<index])
            }
            previous = character
        }
        return line
    }

    static func quoted(_ text: String) -> String {
        "'" + (text.count > 60 ? String(text.prefix(60)) + "..." : text) + "'"
    }
}

/// The command line's view of configuration: which files to read and which settings
/// to override. Arguments it does not know are left in `remaining` for the program.
public struct CommandLineOptions: Equatable, Sendable {
    public static let defaultConfigPath = "/etc/boardwalk/boardwalk.conf"

    public var configPath = CommandLineOptions.defaultConfigPath
    /// Overrides in the order given; the last one for a key wins.
    public var overrides: [ConfigEntry] = []
    public var remaining: [String] = []
    public var diagnostics: [ConfigDiagnostic] = []

    public init() {}

    /// Flags taking a value, and the setting each one sets.
    public static let settingFlags: [String: String] = [
        "--rotation": "display.rotation",
        "--size": "display.mode",
        "--state-dir": "kiosk.state_dir",
        "--data-dir": "kiosk.data_dir",
        "--board": "kiosk.board",
        "--language": "kiosk.language",
    ]

    /// `arguments` without the program name. Both `--flag value` and `--flag=value`.
    public static func parse(_ arguments: [String]) -> CommandLineOptions {
        var options = CommandLineOptions()
        var index = 0
        let origin = "command line"
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                options.remaining += arguments[index...]
                break
            }
            var flag = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            let takesValue = flag == "--config" || flag == "--set" || settingFlags[flag] != nil
            guard takesValue else {
                options.remaining.append(argument)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                options.diagnostics.append(.init(.warning, origin: origin, "\(flag) needs a value; ignored"))
                continue
            }
            switch flag {
            case "--config":
                options.configPath = value
            case "--set":
                guard let equals = value.firstIndex(of: "="), value[..<equals].contains(".") else {
                    options.diagnostics.append(.init(.warning, origin: origin,
                                                     "--set \(value): expected section.key=value; ignored"))
                    continue
                }
                options.overrides.append(ConfigEntry(
                    key: String(value[..<equals]).trimmed.lowercased(),
                    value: String(value[value.index(after: equals)...]).trimmed, origin: origin, line: nil))
            default:
                options.overrides.append(ConfigEntry(key: settingFlags[flag]!, value: value, origin: origin, line: nil))
            }
        }
        return options
    }
}

/// The configuration as loaded: settings plus what went wrong on the way.
public struct Config: Sendable {
    public var settings: Settings
    public var diagnostics: [ConfigDiagnostic]
    /// The files that were read, lowest precedence first.
    public var files: [String]

    /// Sections of a board profile that describe the board or are for the image builder
    /// (kernel command line, firmware config), not the kiosk: skipped without a warning.
    public static let imageSections: Set<String> = ["board", "image", "boot", "kernel", "firmware", "system"]

    /// Loads defaults <- board profile <- config file <- command line.
    /// Never fails: every problem is a diagnostic, and defaults fill the gaps.
    public static func load(_ options: CommandLineOptions, defaults: Settings = Settings()) -> Config {
        var diagnostics = options.diagnostics
        var files: [String] = []

        let main = read(options.configPath, missing: .notice, into: &diagnostics)
        if main != nil { files.append(options.configPath) }
        let mainEntries = main?.entries ?? []

        // The board and data dir decide where the profile is; the command line beats the file.
        let early = mainEntries + options.overrides
        let dataDir = early.last(where: { $0.key == "kiosk.data_dir" })?.value ?? defaults.kiosk.dataDir
        let boardName = early.last(where: { $0.key == "kiosk.board" })?.value ?? defaults.kiosk.board
        var boardEntries: [ConfigEntry] = []
        if let boardName, !boardName.isEmpty, boardName != "none" {
            if let path = boardProfilePath(boardName, dataDir: dataDir) {
                if let board = read(path, missing: .warning, into: &diagnostics) {
                    files.insert(path, at: 0)
                    boardEntries = board.entries.filter { entry in
                        !imageSections.contains(Settings.split(entry.key).section)
                    }
                }
            } else {
                diagnostics.append(.init(.warning, origin: options.configPath,
                                         "board profile '\(boardName)' not found under \(dataDir)/boards; using defaults"))
            }
        }

        var settings = defaults
        for entry in boardEntries + mainEntries + options.overrides {
            if let problem = apply(entry, to: &settings) {
                diagnostics.append(problem)
            }
        }
        return Config(settings: settings, diagnostics: diagnostics, files: files)
    }

    /// The profile for a board name: a path as given, else <data_dir>/boards/NAME.conf
    /// or <data_dir>/boards/NAME/board.conf; nil when none exists.
    public static func boardProfilePath(_ board: String, dataDir: String) -> String? {
        if board.contains("/") { return board }
        for candidate in ["\(dataDir)/boards/\(board).conf", "\(dataDir)/boards/\(board)/board.conf"]
        where Files.exists(candidate) {
            return candidate
        }
        return nil
    }

    /// Applies one entry; a refusal comes back as a warning that names the value kept.
    public static func apply(_ entry: ConfigEntry, to settings: inout Settings) -> ConfigDiagnostic? {
        let (section, name) = Settings.split(entry.key)
        let place = entry.line == nil ? "\(entry.key)=\(entry.value)" : "\(entry.key) = \(entry.value)"
        guard Settings.sections.contains(section) else {
            return .init(.warning, origin: entry.origin, line: entry.line,
                         "unknown section [\(section)] (key \(name)); ignored")
        }
        guard let problem = settings.apply(key: entry.key, value: entry.value) else { return nil }
        if problem == "unknown key" {
            return .init(.warning, origin: entry.origin, line: entry.line,
                         "unknown key '\(name)' in [\(section)]; ignored")
        }
        let kept = settings.value(for: entry.key) ?? ""
        return .init(.warning, origin: entry.origin, line: entry.line, "\(place): \(problem); using \(kept)")
    }

    /// Lays the operator's saved settings (volume, rotation...) over the files, then the
    /// command line again on top, for the full order:
    /// defaults < board profile < config file < operator menu < command line.
    public mutating func applyOperatorSettings(from store: StateStore, options: CommandLineOptions) {
        diagnostics += store.applySettings(to: &settings)
        // The command line's own problems were reported by load(); don't repeat them.
        for entry in options.overrides { _ = Config.apply(entry, to: &settings) }
    }

    /// Writes the diagnostics to the log (warnings as warnings, notices as notices).
    public func logDiagnostics() {
        for diagnostic in diagnostics {
            switch diagnostic.level {
            case .warning: Log.warning("config: \(diagnostic)")
            case .notice: Log.notice("config: \(diagnostic)")
            }
        }
    }

    private static func read(_ path: String, missing: ConfigDiagnostic.Level,
                             into diagnostics: inout [ConfigDiagnostic])
        -> (entries: [ConfigEntry], diagnostics: [ConfigDiagnostic])?
    {
        let text: String
        do {
            text = try Files.readText(path)
        } catch {
            if error.errno == ENOENT {
                diagnostics.append(.init(missing, origin: path, "not found; using defaults"))
            } else {
                diagnostics.append(.init(.warning, origin: path, "cannot be read (\(error.message)); using defaults"))
            }
            return nil
        }
        let parsed = ConfigFile.parse(text, origin: path)
        diagnostics += parsed.diagnostics
        return parsed
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends (CRLF files, sysfs values).
    var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
