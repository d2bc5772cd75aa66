import BeatZombies

/// The names of the settings other code than the settings table reads or writes (the
/// operator's pages, the command line's shorthands, the config's early look-ups): defined
/// once here, used by the table (`SettingsTable.swift`) and by them. Config files,
/// `--set` and the state's `settings` file spell them this way: changing one is a
/// breaking change.
enum SettingKey {
    static let audioVolume = "audio.volume"
    static let audioVolumeMax = "audio.volume_max"
    static let audioAttractVolume = "audio.attract_volume"
    static let displayBrightness = "display.brightness"
    static let displayRotation = "display.rotation"
    static let displayDimAfter = "display.dim_after"
    static let displayOffAfter = "display.off_after"
    static let displayPixelShift = "display.pixel_shift"
    static let touchCalibration = "touch.calibration"
    static let kioskLanguage = "kiosk.language"
    static let kioskEnabledGames = "kiosk.enabled_games"
    static let kioskIdleToMenuSeconds = "kiosk.idle_to_menu_seconds"
    static let kioskMenuToAttractSeconds = "kiosk.menu_to_attract_seconds"
    static let kioskHours = "kiosk.hours"
    static let kioskClosedCard = "kiosk.closed_card"
    static let kioskMode = "kiosk.mode"
    static let kioskCreditsPerPlay = "kiosk.credits_per_play"
    static let kioskCoinsPerCredit = "kiosk.coins_per_credit"
    static let zombiesDifficulty = BeatZombiesScene.difficultyKey
    static let displayMode = "display.mode"
    static let kioskStateDir = "kiosk.state_dir"
    static let kioskDataDir = "kiosk.data_dir"
    static let kioskBoard = "kiosk.board"
}
