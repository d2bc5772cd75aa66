/// The player's language: it picks every word a game and the kiosk show, and Guess
/// Picture's question pack.
public enum Language: String, Sendable, CaseIterable {
    case english = "en"
    case chinese = "zh"
}
