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
        "--rotation": SettingKey.displayRotation,
        "--size": SettingKey.displayMode,
        "--state-dir": SettingKey.kioskStateDir,
        "--data-dir": SettingKey.kioskDataDir,
        "--board": SettingKey.kioskBoard,
        "--language": SettingKey.kioskLanguage,
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
