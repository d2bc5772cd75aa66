import ScreenGeometry
import BeatZombies
import Graphics
import Input
import Platform
import UI

// Configuration: defaults, then the board profile, then /etc/boardwalk/boardwalk.conf,
// then the command line, each overriding the one before. Files are `key = value` lines
// under `[section]` headers, `#` starts a comment. A bad line is a warning naming the
// file and line; the setting keeps its earlier value and the kiosk starts anyway.

/// Every setting the kiosk reads at start, typed, with the defaults a board without a
/// profile gets.
public struct Settings: Equatable, Sendable {
    public struct Display: Equatable, Sendable {
        /// A DRM card node (/dev/dri/card1); nil: the first card that can show a picture.
        public var card: String? = nil
        /// A connector as the kernel names it ("HDMI-A-1", "DSI-1"); nil: the first connected.
        public var connector: String? = nil
        /// "1280x800" or "1280x800@60"; nil: the preferred mode, else the largest.
        /// Headless runs use it as the screen size.
        public var mode: String? = nil
        /// 0, 90, 180 or 270 degrees clockwise.
        public var rotation: Rotation = .deg0
        /// .xrgb8888 or .rgb565; nil: the driver's preferred depth.
        public var format: PixelFormat? = nil
        /// Backlight level in percent at start; nil leaves it as the firmware set it.
        public var brightness: Int? = nil
        /// The VT the kiosk owns; nil runs without one (tests, headless).
        public var tty: String? = "/dev/tty1"
        /// Burn-in care: the menu and the attract mode move a few pixels every two minutes.
        public var pixelShift = true
        /// Idle minutes before the backlight (or the picture) dims, and before the panel
        /// goes off (DPMS); 0: never.
        public var dimAfterMinutes = 0
        public var offAfterMinutes = 0
        public init() {}
    }

    public struct Touch: Equatable, Sendable {
        /// An evdev node (/dev/input/event3) or a device name as the kernel reports it
        /// ("QEMU Virtio Tablet"); nil: every device with touch capability.
        public var device: String? = nil
        /// libinput's LIBINPUT_CALIBRATION_MATRIX: a b c d e f on normalized coordinates.
        public var calibration: [Double] = Calibration.identity
        public var swapXY = false
        public var invertX = false
        public var invertY = false
        public init() {}
    }

    public struct Input: Equatable, Sendable {
        /// Which keyboard keys the kiosk takes: all (a developer's keyboard), controls
        /// (arrows, Enter, Esc, F12: the image's default, so a keyboard plugged into a
        /// public kiosk cannot type), none (game controllers only).
        public var keyboards = KeyboardPolicy.all
        public init() {}
    }

    public struct Audio: Equatable, Sendable {
        /// The ALSA PCM name ("default", "hw:0,0", "plughw:CARD=vc4hdmi").
        public var pcm = "default"
        /// The mixer controls unmuted and set at start, in order ("Master", "PCM": some
        /// cards, AC97 among them, need both); empty: leave the mixer alone.
        public var mixerControls: [String] = []
        /// The first of `mixerControls`; setting it replaces the list.
        public var mixerControl: String? {
            get { mixerControls.first }
            set { mixerControls = newValue.map { [$0] } ?? [] }
        }
        /// Frames per ALSA period at 48 kHz: 480 is 10 ms; Pi HDMI wants ~2400.
        public var periodFrames = 256
        public var bufferPeriods = 4
        /// Master volume in percent.
        public var volume = 80
        /// The most the volume can be (the operator menu stops there too).
        public var volumeMax = 100
        /// The attract mode plays at this percent of the volume (venues like it quiet).
        public var attractVolume = 100
        /// Where an operator's replacement sounds are: files named after a sound or tune
        /// ("zombieHit.wav", "menu.ogg"; `boardwalk sound-export` lists the names).
        public var soundsDir = "/etc/boardwalk/sounds"
        public init() {}
    }

    public struct Kiosk: Equatable, Sendable {
        /// The games' language (UI's `Language`: "en" or "zh" in files).
        public var language = Language.english
        /// Game ids (`GameDescriptor.id`) in menu order.
        public var enabledGames = GameCatalog.standard.ids
        /// No input for this long in a game: back to the menu. 0: never.
        public var idleToMenuSeconds = 90
        /// This long idle in the menu: the attract mode. 0: never.
        public var menuToAttractSeconds = 60
        /// How long the attract mode shows each game before the next.
        public var attractSecondsPerGame = 30
        /// The operator PIN's salted hash; nil (no PIN set): the operator menu stays
        /// closed and settings come from the config files only. No default on purpose.
        public var operatorPIN: PINHash? = nil
        public var stateDir = "/var/lib/boardwalk"
        public var dataDir = "/usr/share/boardwalk"
        /// A board profile name (looked up under <data_dir>/boards) or a path; nil: none.
        public var board: String? = nil
        /// Free play, or a game costs credits bought with coins (`Credits.swift`).
        public var playMode = PlayMode.free
        public var creditsPerPlay = 1
        public var coinsPerCredit = 1
        /// When the cabinet is open; outside, the panel is off and the sound muted.
        public var hours = OpeningHours.always
        /// Outside the hours, a touch shows a "closed" card for a minute.
        public var closedCard = true
        public init() {}
    }

    public struct Zombies: Equatable, Sendable {
        /// How fast Beat Zombies gets faster: gentle, classic (the original's rule) or arcade.
        public var difficulty = BeatZombiesDifficulty.arcade
        public init() {}
    }

    public struct Metrics: Equatable, Sendable {
        /// Where the kiosk writes `boardwalk.prom` (the node exporter's textfile collector)
        /// and `boardwalk-activity.prom` (the fleet's reboot waits for it): a directory,
        /// "none" (off), or "auto" (`textfileDirectory`).
        public var textfileDir = "auto"
        /// The node exporter's port, for the image builder (images/lib.sh `bw_enable_exporter`);
        /// nil: no exporter. The kiosk itself never listens (PrivateNetwork=yes).
        public var exporterPort: Int? = nil
        public static let defaultTextfileDir = "/run/boardwalk-metrics"

        /// The directory the metrics go to; nil: no metrics file. "auto" is
        /// `defaultTextfileDir` where it exists: the kiosk's tmpfiles make it on every image
        /// and package install, whoever reads it (the exporter, the fleet's reboot); a
        /// development machine has none.
        public func textfileDirectory(isDirectory: (String) -> Bool = Files.isDirectory) -> String? {
            switch textfileDir {
            case "none": return nil
            case "auto": return isDirectory(Self.defaultTextfileDir) ? Self.defaultTextfileDir : nil
            default: return textfileDir
            }
        }
        public init() {}
    }

    public var display = Display()
    public var touch = Touch()
    public var input = Input()
    public var audio = Audio()
    public var kiosk = Kiosk()
    /// The coin mech: its key and its device (`[coin]`).
    public var coin = CoinMech()
    public var zombies = Zombies()
    public var metrics = Metrics()

    /// The games' own settings as `GameContext.settings` hands them to the scenes.
    public var gameSettings: [String: String] {
        [BeatZombiesScene.difficultyKey: zombies.difficulty.rawValue]
    }

    public init() {}
}
