#if canImport(Glibc)
import Glibc
#endif
import Platform

// Configuration: defaults, then the board profile, then /etc/boardwalk/boardwalk.conf,
// then the command line, each overriding the one before. Files are `key = value` lines
// under `[section]` headers, `#` starts a comment. A bad line is a warning naming the
// file and line; the setting keeps its earlier value and the kiosk starts anyway.


/// The configuration as loaded: settings plus what went wrong on the way.
public struct Config: Sendable {
    public var settings: Settings
    public var diagnostics: [ConfigDiagnostic]
    /// The files that were read, lowest precedence first.
    public var files: [String]

    /// Sections of a board profile that describe the board or are for the image builder
    /// (kernel command line, firmware config), not the kiosk: skipped without a warning.
    public static let imageSections: Set<String> = ["board", "image", "boot", "kernel", "firmware", "system"]
    /// Keys of the kiosk's sections that only the image builder reads (`images/lib.sh`
    /// `bw_enable_exporter`: where the node exporter listens, its password file): skipped
    /// without a warning in a board profile, where they belong.
    public static let imageKeys: Set<String> = ["metrics.exporter_interface", "metrics.exporter_address",
                                                "metrics.exporter_password_file"]

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
        let dataDir = early.last(where: { $0.key == SettingKey.kioskDataDir })?.value ?? defaults.kiosk.dataDir
        let boardName = early.last(where: { $0.key == SettingKey.kioskBoard })?.value ?? defaults.kiosk.board
        var boardEntries: [ConfigEntry] = []
        if let boardName, !boardName.isEmpty, boardName != "none" {
            if let path = boardProfilePath(boardName, dataDir: dataDir) {
                if let board = read(path, missing: .warning, into: &diagnostics) {
                    files.insert(path, at: 0)
                    boardEntries = board.entries.filter { entry in
                        !imageSections.contains(Settings.split(entry.key).section) && !imageKeys.contains(entry.key)
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
        // A secret's value is never repeated into the journal, not even a refused one.
        let shown = Settings.secretKeys.contains(entry.key) ? "(not shown)" : entry.value
        let place = entry.line == nil ? "\(entry.key)=\(shown)" : "\(entry.key) = \(shown)"
        // [fleet] is the fleet updater's (images/fleet/boardwalk-fleet), in the same file.
        if section == "fleet" { return nil }
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
    /// The operator PIN's hash comes from the state partition's own file (OperatorPINFile),
    /// never from its `settings`. Returns the diagnostics this step added.
    @discardableResult
    public mutating func applyOperatorSettings(from store: StateStore, options: CommandLineOptions) -> [ConfigDiagnostic] {
        let added = store.applySettings(to: &settings) + OperatorPINFile.apply(directory: store.directory, to: &settings)
        diagnostics += added
        // The command line's own problems were reported by load(); don't repeat them.
        for entry in options.overrides { _ = Config.apply(entry, to: &settings) }
        return added
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
