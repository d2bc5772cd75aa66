import Platform
import ScreenGeometry

/// The cabinet around the kiosk: the hardware and system services the kiosk drives but
/// does not own. The live kiosk (`LiveRunner`) wires each to the real device; headless
/// runs and tests leave them unset or put a twin in.
public final class Cabinet {
    /// The mixer's volume in percent, as the kiosk wants it now (`CabinetPanel.applyVolume`);
    /// a new one hears the volume on the next tick.
    public var onVolumeChange: ((Int) -> Void)? { didSet { toldVolume = nil } }
    /// The volume last told to the mixer.
    private var toldVolume: Int?
    public var onBrightnessChange: ((Int) -> Void)?
    /// The backlight's level in percent; nil: no backlight control.
    public var brightnessReader: (() -> Int?)?
    /// Switches the panel on or off (DPMS) and says whether it could; nil or false: the
    /// picture goes black instead.
    public var onPanelPower: ((Bool) -> Bool)?
    public var onRotationChange: ((Rotation) -> Void)?
    public var onCalibrationModeChange: ((Bool) -> Void)?
    public var onCalibrationDone: (([Double]) -> Void)?
    public var onExitToConsole: (() -> Void)?
    /// The operator asked for a restart (systemd starts the kiosk again).
    public var onRestart: (() -> Void)?
    /// System updates from a USB stick (`SystemUpdater.swift`); the live kiosk sets RAUC's.
    public var updater: SystemUpdater = SimulatedUpdater()
    /// Sticks mounted only while a page that uses them shows (`USBSticks.swift`).
    var usbSticks = USBStickRequest(runtimeDirectory: nil)
    /// Whether slow work (the PIN's hash, reading and writing USB sticks) runs on a thread
    /// of its own (the live kiosk) or at once (headless runs and tests, on their virtual
    /// clock).
    public var worksInBackground = false

    public init() {}

    /// Tells the mixer a volume when it differs from the last one told (or `force`: a new mixer).
    func setVolume(_ level: Int, force: Bool = false) {
        guard force || level != toldVolume else { return }
        toldVolume = level
        onVolumeChange?(level)
    }

    /// The live kiosk's sticks are asked for through systemd's runtime directory
    /// (`$RUNTIME_DIRECTORY`).
    public func asksForUSBSticksThroughRuntimeDirectory() { usbSticks = .fromEnvironment() }
}
