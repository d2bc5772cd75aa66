#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The operator PIN's hash on the state partition: `<state_dir>/operator-pin`, one line
/// `pbkdf2-sha256$ITERATIONS$SALT$HASH`. Only `boardwalk-set-pin` writes it (set-pin.sh, the
/// image builds); the state's `settings` file can never set the PIN (`Settings.operatorKeys`).
/// Kept with the state rather than in the root's boardwalk.conf, an update's root carries
/// no PIN and never changes it, and the PIN can be set on a read-only root. While the file
/// is missing, a PIN in boardwalk.conf counts (installs from before the file).
public enum OperatorPINFile {
    public static let name = "operator-pin"
    /// A hash line is under 200 bytes; anything much longer is not one.
    static let maximumBytes = 1024

    /// Lays the file's hash over the configuration's. Missing: the configuration's PIN
    /// stands. Unreadable or not a hash: a warning, and the configuration's PIN stands (the
    /// journal never shows the file's text).
    public static func apply(directory: String, to settings: inout Settings) -> [ConfigDiagnostic] {
        let path = directory + "/" + name
        let text: String
        do {
            text = try Files.readText(path)
        } catch {
            if error.errno == ENOENT { return [] }
            return [.init(.warning, origin: path, "cannot be read (\(error.message)); \(fallback(settings))")]
        }
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { String($0).trimmed }.filter { !$0.isEmpty }
        guard text.utf8.count <= maximumBytes, lines.count == 1, let hash = PINHash(parsing: lines[0]) else {
            return [.init(.warning, origin: path,
                          "not one pbkdf2-sha256$ITERATIONS$SALT$HASH line (set the PIN with boardwalk-set-pin); \(fallback(settings))")]
        }
        settings.kiosk.operatorPIN = hash
        return []
    }

    private static func fallback(_ settings: Settings) -> String {
        settings.kiosk.operatorPIN == nil
            ? "no PIN: the operator menu stays closed"
            : "using the PIN in boardwalk.conf"
    }
}
