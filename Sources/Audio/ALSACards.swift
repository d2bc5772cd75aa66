#if canImport(Glibc)
import Glibc
#endif
import CALSA

/// A sound card as alsa-lib's control interface describes it.
public struct SoundCard: Equatable, Sendable {
    public let index: Int32
    /// The card's id ("Headphones", "vc4hdmi0", "Device"): what `CARD=` takes.
    public let id: String
    /// The kernel driver's name for alsa-lib ("USB-Audio", "ICH", "vc4-hdmi", "bcm2835_hdmi").
    public let driver: String
    public init(index: Int32, id: String, driver: String) {
        self.index = index
        self.id = id
        self.driver = driver
    }
}

/// The PCM and mixer card a configured sound output stands for, and the cards there are.
///
/// `usb` names the first USB sound card (driver USB-Audio), looked up at every open, so a
/// card plugged in later, or given another index after a reboot, is found. It opens the
/// card's hardware through `plughw`, not alsa-lib's `default`: for USB and AC97 cards that
/// default mixes through dmix, which keeps its own 1024-frame periods whatever the profile
/// asks (a tap heard ~70 ms late instead of ~18); the kiosk is the only program playing.
public enum SoundOutput {
    public static let firstUSBCard = "usb"

    public struct Target: Equatable, Sendable {
        /// What snd_pcm_open gets.
        public let pcm: String
        /// What the mixer controls are set on: the PCM's own card where the name says it,
        /// else alsa-lib's default control device.
        public let mixerCard: String
    }

    /// `cards` is only read for `usb` (SoundCards.list() on a board).
    public static func resolve(_ configured: String, cards: [SoundCard]) throws(AudioDeviceError) -> Target {
        if configured == firstUSBCard {
            guard let card = cards.first(where: { $0.driver == "USB-Audio" }) else {
                let seen = cards.isEmpty ? "no sound card at all" : "cards: " + cards.map { "\($0.id) (\($0.driver))" }.joined(separator: ", ")
                throw AudioDeviceError("no USB sound card (\(seen)) for", configured, -ENODEV)
            }
            return Target(pcm: "plughw:CARD=\(card.id),DEV=0", mixerCard: "hw:CARD=\(card.id)")
        }
        return Target(pcm: configured, mixerCard: mixerCard(of: configured))
    }

    /// "plughw:CARD=Headphones,DEV=0" -> "hw:CARD=Headphones"; "hw:1,0" -> "hw:1";
    /// "default:CARD=vc4hdmi0" -> "hw:CARD=vc4hdmi0"; anything else -> "default".
    static func mixerCard(of pcm: String) -> String {
        guard let colon = pcm.firstIndex(of: ":") else { return "default" }
        let arguments = pcm[pcm.index(after: colon)...].split(separator: ",")
        guard let first = arguments.first else { return "default" }
        if first.hasPrefix("CARD=") { return "hw:\(first)" }
        let plugin = pcm[..<colon]
        if (plugin == "hw" || plugin == "plughw"), Int(first) != nil { return "hw:\(first)" }
        return "default"
    }
}

public enum SoundCards {
    /// The cards the kernel has, in index order; empty without any (or without /dev/snd).
    public static func list() -> [SoundCard] {
        quietALSALibraryMessages()
        var cards: [SoundCard] = []
        var index: Int32 = -1
        while snd_card_next(&index) == 0, index >= 0 {
            var ctl: OpaquePointer?
            guard snd_ctl_open(&ctl, "hw:\(index)", 0) >= 0, let ctl else { continue }
            defer { snd_ctl_close(ctl) }
            var info: OpaquePointer?
            guard snd_ctl_card_info_malloc(&info) >= 0, let info else { continue }
            defer { snd_ctl_card_info_free(info) }
            guard snd_ctl_card_info(ctl, info) >= 0 else { continue }
            cards.append(SoundCard(index: index, id: String(cString: snd_ctl_card_info_get_id(info)),
                                   driver: String(cString: snd_ctl_card_info_get_driver(info))))
        }
        return cards
    }
}
