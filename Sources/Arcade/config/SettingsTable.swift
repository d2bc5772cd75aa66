import ScreenGeometry
// The settings table: every key a file, `--set` or the operator's saved settings may
// name, with how to read and write it. Adding a setting: a field in Settings.swift, an
// entry here and a line in docs/CONFIG.md.
import BeatZombies
import Graphics
import Input
import Platform
import UI

extension Settings {
    /// Every key a file, `--set` or the operator's saved settings may name.
    public static var keys: [String] { Settings.table.map(\.key) }
    public static let sections = ["display", "touch", "input", "audio", "kiosk", "coin", "zombies", "metrics"]
    /// What the operator menu sets, and so all the state partition's `settings` file may
    /// hold: a card's state partition is the one place a stranger with the card could edit,
    /// so paths, devices, the coin mech, the keyboard policy, the metrics and the PIN
    /// come only from root's files (the board profile, boardwalk.conf).
    public static let operatorKeys: Set<String> = [
        SettingKey.audioVolume, SettingKey.audioVolumeMax, SettingKey.audioAttractVolume,
        SettingKey.displayBrightness, SettingKey.displayRotation, SettingKey.displayDimAfter, SettingKey.displayOffAfter, SettingKey.displayPixelShift,
        SettingKey.touchCalibration,
        SettingKey.kioskLanguage, SettingKey.kioskEnabledGames, SettingKey.kioskIdleToMenuSeconds, SettingKey.kioskMenuToAttractSeconds,
        SettingKey.kioskHours, SettingKey.kioskClosedCard, SettingKey.kioskMode, SettingKey.kioskCreditsPerPlay, SettingKey.kioskCoinsPerCredit,
        SettingKey.zombiesDifficulty,
    ]
    /// Keys whose values no log line repeats.
    public static let secretKeys: Set<String> = ["kiosk.operator_pin"]

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
        Entry(key: SettingKey.displayMode, get: { $0.display.mode ?? "auto" }) { s, v in
            if v == "auto" { s.display.mode = nil; return nil }
            guard Parse.mode(v) != nil else { return "expected auto, WIDTHxHEIGHT or WIDTHxHEIGHT@HZ" }
            s.display.mode = v
            return nil
        },
        Entry(key: SettingKey.displayRotation, get: { String($0.display.rotation.rawValue) }) { s, v in
            guard let degrees = Int(v), let rotation = Rotation(rawValue: degrees) else {
                return "must be 0, 90, 180 or 270"
            }
            s.display.rotation = rotation
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
        Entry(key: SettingKey.displayBrightness, get: { $0.display.brightness.map(String.init) ?? "auto" }) { s, v in
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
        Entry(key: SettingKey.displayPixelShift, get: { String($0.display.pixelShift) }) { s, v in
            Parse.bool(v).map { s.display.pixelShift = $0 } == nil ? Parse.boolHelp : nil
        },
        Entry(key: SettingKey.displayDimAfter, get: { String($0.display.dimAfterMinutes) }) { s, v in
            Parse.int(v, 0...1440).map { s.display.dimAfterMinutes = $0 } == nil ? "must be 0 (never) to 1440 minutes" : nil
        },
        Entry(key: SettingKey.displayOffAfter, get: { String($0.display.offAfterMinutes) }) { s, v in
            Parse.int(v, 0...1440).map { s.display.offAfterMinutes = $0 } == nil ? "must be 0 (never) to 1440 minutes" : nil
        },
        Entry(key: "touch.device", get: { $0.touch.device ?? "auto" }) { s, v in
            guard !v.isEmpty else { return "expected auto, a /dev/input path or a device name" }
            s.touch.device = v == "auto" ? nil : v
            return nil
        },
        Entry(key: SettingKey.touchCalibration, get: { $0.touch.calibration.map(Parse.number).joined(separator: " ") }) { s, v in
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
        Entry(key: SettingKey.audioVolume, get: { String($0.audio.volume) }) { s, v in
            Parse.int(v, 0...100).map { s.audio.volume = $0 } == nil ? "must be 0 to 100 (percent)" : nil
        },
        Entry(key: SettingKey.audioVolumeMax, get: { String($0.audio.volumeMax) }) { s, v in
            Parse.int(v, 0...100).map { s.audio.volumeMax = $0 } == nil ? "must be 0 to 100 (percent)" : nil
        },
        Entry(key: SettingKey.audioAttractVolume, get: { String($0.audio.attractVolume) }) { s, v in
            Parse.int(v, 0...100).map { s.audio.attractVolume = $0 } == nil ? "must be 0 to 100 (percent of the volume)" : nil
        },
        Entry(key: "audio.sounds_dir", get: { $0.audio.soundsDir }) { s, v in
            guard v.hasPrefix("/") else { return "expected an absolute directory path" }
            s.audio.soundsDir = v
            return nil
        },
        Entry(key: SettingKey.kioskLanguage, get: { $0.kiosk.language.rawValue }) { s, v in
            guard let language = Language(rawValue: v) else { return "must be en or zh" }
            s.kiosk.language = language
            return nil
        },
        Entry(key: SettingKey.kioskEnabledGames, get: { $0.kiosk.enabledGames.joined(separator: ", ") }) { s, v in
            let names = Parse.list(v)
            let known = GameCatalog.standard.ids
            let unknown = names.filter { !known.contains($0) }
            if !unknown.isEmpty {
                return "unknown game \(unknown.joined(separator: ", ")) (known: \(known.joined(separator: ", ")))"
            }
            if names.isEmpty { return "at least one game must stay enabled" }
            var seen: [String] = []
            for name in names where !seen.contains(name) { seen.append(name) }
            s.kiosk.enabledGames = seen
            return nil
        },
        Entry(key: "input.keyboards", get: { $0.input.keyboards.rawValue }) { s, v in
            guard let policy = KeyboardPolicy(rawValue: v) else { return "expected all, controls or none" }
            s.input.keyboards = policy
            return nil
        },
        Entry(key: SettingKey.kioskIdleToMenuSeconds, get: { String($0.kiosk.idleToMenuSeconds) }) { s, v in
            Parse.timeout(v).map { s.kiosk.idleToMenuSeconds = $0 } == nil ? Parse.timeoutHelp : nil
        },
        Entry(key: SettingKey.kioskMenuToAttractSeconds, get: { String($0.kiosk.menuToAttractSeconds) }) { s, v in
            Parse.timeout(v).map { s.kiosk.menuToAttractSeconds = $0 } == nil ? Parse.timeoutHelp : nil
        },
        Entry(key: "kiosk.attract_seconds_per_game", get: { String($0.kiosk.attractSecondsPerGame) }) { s, v in
            Parse.int(v, 5...3600).map { s.kiosk.attractSecondsPerGame = $0 } == nil ? "must be 5 to 3600" : nil
        },
        // The hash is not shown back (a printed config must not help anyone guess offline).
        Entry(key: "kiosk.operator_pin", get: { $0.kiosk.operatorPIN == nil ? "none" : "(hashed)" }) { s, v in
            if v == "none" { s.kiosk.operatorPIN = nil; return nil }
            guard let hash = PINHash(parsing: v) else {
                return v.allSatisfy({ $0.isASCII && $0.isNumber })
                    ? "a PIN is stored hashed, never as digits: set it with `make install PIN=NNNNNN` (scripts/set-pin.sh)"
                    : "expected none or pbkdf2-sha256$ITERATIONS$SALT$HASH (scripts/set-pin.sh writes it)"
            }
            s.kiosk.operatorPIN = hash
            return nil
        },
        Entry(key: SettingKey.kioskStateDir, get: { $0.kiosk.stateDir }) { s, v in
            guard !v.isEmpty else { return "expected a directory" }
            s.kiosk.stateDir = v
            return nil
        },
        Entry(key: SettingKey.kioskDataDir, get: { $0.kiosk.dataDir }) { s, v in
            guard !v.isEmpty else { return "expected a directory" }
            s.kiosk.dataDir = v
            return nil
        },
        Entry(key: SettingKey.kioskBoard, get: { $0.kiosk.board ?? "none" }) { s, v in
            s.kiosk.board = (v.isEmpty || v == "none") ? nil : v
            return nil
        },
        Entry(key: SettingKey.kioskMode, get: { $0.kiosk.playMode.rawValue }) { s, v in
            guard let mode = PlayMode(rawValue: v) else { return "must be free or credits" }
            s.kiosk.playMode = mode
            return nil
        },
        Entry(key: SettingKey.kioskCreditsPerPlay, get: { String($0.kiosk.creditsPerPlay) }) { s, v in
            Parse.int(v, 1...9).map { s.kiosk.creditsPerPlay = $0 } == nil ? "must be 1 to 9" : nil
        },
        Entry(key: SettingKey.kioskCoinsPerCredit, get: { String($0.kiosk.coinsPerCredit) }) { s, v in
            Parse.int(v, 1...20).map { s.kiosk.coinsPerCredit = $0 } == nil ? "must be 1 to 20" : nil
        },
        Entry(key: SettingKey.kioskHours, get: { $0.kiosk.hours.text }) { s, v in
            guard let hours = OpeningHours(parsing: v) else {
                return "expected always, HH:MM-HH:MM, or rules such as mon-fri 09:00-21:00, sat 10:00-22:00, sun closed"
            }
            s.kiosk.hours = hours
            return nil
        },
        Entry(key: SettingKey.kioskClosedCard, get: { String($0.kiosk.closedCard) }) { s, v in
            Parse.bool(v).map { s.kiosk.closedCard = $0 } == nil ? Parse.boolHelp : nil
        },
        Entry(key: "coin.key", get: { $0.coin.key.map(KeyMapper.name(ofCode:)) ?? "none" }) { s, v in
            if v == "none" { s.coin.key = nil; return nil }
            guard let code = KeyMapper.code(named: v) else { return "expected none or a key name such as KEY_5" }
            s.coin.key = code
            return nil
        },
        Entry(key: "coin.device", get: { $0.coin.device ?? "none" }) { s, v in
            if v == "none" || v.isEmpty { s.coin.device = nil; return nil }
            s.coin.device = v
            return nil
        },
        Entry(key: SettingKey.zombiesDifficulty, get: { $0.zombies.difficulty.rawValue }) { s, v in
            guard let difficulty = BeatZombiesDifficulty(rawValue: v.lowercased()) else {
                return "must be " + BeatZombiesDifficulty.allCases.map(\.rawValue).joined(separator: ", ")
            }
            s.zombies.difficulty = difficulty
            return nil
        },
        Entry(key: "metrics.textfile_dir", get: { $0.metrics.textfileDir }) { s, v in
            guard v == "auto" || v == "none" || (v.hasPrefix("/") && v.count > 1) else {
                return "expected auto, none or an absolute directory path"
            }
            s.metrics.textfileDir = v.count > 1 && v.hasSuffix("/") ? String(v.dropLast()) : v
            return nil
        },
        Entry(key: "metrics.exporter_port", get: { $0.metrics.exporterPort.map(String.init) ?? "none" }) { s, v in
            if v == "none" || v == "0" { s.metrics.exporterPort = nil; return nil }
            guard let port = Parse.int(v, 1...65535) else { return "expected none or a TCP port, 1 to 65535" }
            s.metrics.exporterPort = port
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
