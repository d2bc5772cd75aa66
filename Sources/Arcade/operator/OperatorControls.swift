import Platform
import ScreenGeometry
import UI

/// What the operator menu can read and change; the kiosk implements it.
public protocol OperatorControls: AnyObject {
    var volume: Int { get set }
    /// nil when the screen has no backlight control.
    var brightness: Int? { get set }
    var rotation: Rotation { get set }
    var language: Language { get set }
    var idleToMenuSeconds: Int { get set }
    var menuToAttractSeconds: Int { get set }
    var games: [(id: String, name: String, enabled: Bool)] { get }
    func setGame(_ id: String, enabled: Bool)
    /// Each game's high-score tables, for the operator's scores page.
    var scoreTables: [ScoreTablesScene.Game] { get }
    func highScoreCount(_ key: String) -> Int
    func clearHighScores(_ key: String)
    func clearAllHighScores()
    var playMode: PlayMode { get set }
    var creditsPerPlay: Int { get set }
    var coinsPerCredit: Int { get set }
    /// Credits on the meter now.
    var credits: Int { get }
    var books: Bookkeeping { get }
    /// Writes the books as CSV to a mounted USB stick, off the run loop: the file, or why not.
    func exportBooks() -> BackgroundResult<Result<String, Bookkeeping.Problem>>
    /// Update bundles on the sticks (`SystemUpdater.findBundles`), looked for off the run loop.
    func findBundles() -> BackgroundResult<[String]>
    func resetBooks()
    func showPage(_ page: OperatorPageKind)
    /// Any setting by its config key, in its text form (the pages for screen care, hours
    /// and sound limits use these).
    func value(of key: String) -> String
    func change(_ key: String, to value: String)
    func startCalibration()
    func exitToConsole()
    /// Stops the kiosk for systemd to start it again (a fresh start, settings re-read).
    func restartKiosk()
    /// False while the state partition takes no writes: the menu warns the operator.
    var stateIsWritable: Bool { get }
    /// The image's version and the booted slot.
    var systemVersion: SystemVersion { get }
    /// RAUC on a cabinet; a twin in tests and headless runs.
    var updater: SystemUpdater { get }
}
