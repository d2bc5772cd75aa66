#if canImport(Glibc)
import Glibc
#endif

/// Which input device is the coin mech (`[coin]` in the board profile). Coins are money:
/// they come from the device the profile names, never from a keyboard a stranger plugs
/// in, whatever `[input] keyboards` lets that keyboard do.
public struct CoinMech: Sendable, Equatable {
    /// The key code the mech sends, one press per coin; nil: no coin mech.
    public var key: UInt16?
    /// The mech's device: its exact name (a gpio-keys node, an encoder such as "Ultimarc
    /// I-PAC 2"), its unique id (evdev `uniq`), or a /dev/input path (by-path links are
    /// followed). nil: any device that has the key and is not a keyboard (a gpio-keys pin,
    /// a gamepad-class encoder).
    public var device: String?
    /// A real mech drops at most about ten coins a second: presses closer together than
    /// this are contact bounce or someone fiddling, and count once.
    public static let minimumInterval = 0.08

    public init(key: UInt16? = nil, device: String? = nil) {
        self.key = key
        self.device = device
    }

    /// Whether coins from this device count.
    public func isMech(name: String, uniq: String, path: String, deviceClass: DeviceClass) -> Bool {
        guard key != nil else { return false }
        if let device {
            if device.hasPrefix("/") { return Self.resolved(device) == Self.resolved(path) }
            return name == device || (!uniq.isEmpty && uniq == device)
        }
        if case .keys(let info) = deviceClass, !info.isGamepad { return false }
        return true
    }

    /// A path with its symbolic links followed (/dev/input/by-path/... -> /dev/input/event3).
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}
