import Graphics

/// The one look of the menu and every game: a small palette, one type scale, one radius.
public enum Theme {
    public static let background = Color(hex: 0x141826)
    public static let backgroundTop = Color(hex: 0x1E2438)
    public static let surface = Color(hex: 0x242B40)
    public static let surfaceRaised = Color(hex: 0x2E3650)
    public static let accent = Color(hex: 0xFFB938)
    public static let accentText = Color(hex: 0x231A05)
    /// The quiz's "right" blue and "wrong" red.
    public static let success = Color(hex: 0x3B82F6)
    public static let error = Color(hex: 0xEF4444)
    public static let text = Color(hex: 0xF4F1EA)
    public static let textDim = Color(hex: 0xA3A9BC)
    public static let dimCover = Color(r: 5, g: 7, b: 14, a: 170)

    public static let radius: Double = 14
    /// Touch targets are at least this many points (about 9 mm on a 7" panel).
    public static let minTouch: Double = 48

    public static let title = TextStyle(size: 40, weight: .bold, color: text)
    public static let heading = TextStyle(size: 28, weight: .bold, color: text)
    public static let body = TextStyle(size: 20, color: text)
    public static let button = TextStyle(size: 22, weight: .bold, color: accentText)
    public static let caption = TextStyle(size: 15, color: textDim)

    /// Animations ease out within 150-300 ms.
    public static let quick: Double = 0.15
    public static let normal: Double = 0.25
}

/// What the UI needs from the outside world, set once by the kiosk at start.
public enum UIEnvironment {
    nonisolated(unsafe) public static var fonts: FontLibrary = {
        do { return try FontLibrary.shared() } catch {
            fatalError("\(error)")
        }
    }()
    /// Played on every button press (the Arcade connects it to the mixer's click).
    nonisolated(unsafe) public static var playClick: () -> Void = {}
}
