/// Everything about sound that a board profile or the operator sets.
public struct AudioConfig: Sendable {
    /// ALSA PCM name: "plughw:CARD=Headphones,DEV=0", "plughw:1,0", "default", any alsa-lib
    /// PCM string, or "usb" for the first USB sound card (SoundOutput). The mixer controls
    /// are set on the card the name gives, else on alsa-lib's default control device.
    public var device = "default"
    /// Frames per period and periods per buffer. 256 x 4 (21 ms) suits USB and analog
    /// outputs; Pi HDMI wants ~50 ms, e.g. 1024 x 3 or 512 x 5.
    public var periodFrames = 256
    public var periods = 4
    /// At most this many periods are kept queued in the device (2...periods): fewer means
    /// a sound starts sooner, more means more slack before an underrun.
    public var queuedPeriods = 4
    /// The periods kept queued in a device of this buffer and period: `queuedPeriods`, at
    /// least 2 and no more than the buffer holds.
    public func queuedPeriods(bufferFrames: Int, periodFrames: Int) -> Int {
        max(2, min(queuedPeriods, bufferFrames / max(1, periodFrames)))
    }
    /// Mixer elements to set and unmute at start and on every reopen, in order ("Master",
    /// "PCM": AC97 boots with both muted; "Headphone" on a Pi); empty leaves the mixer alone.
    public var mixerControls: [String] = []
    /// The first of mixerControls; setting it replaces the list.
    public var mixerControl: String? {
        get { mixerControls.first }
        set { mixerControls = newValue.map { [$0] } ?? [] }
    }
    /// Hardware volume, percent of the control's range.
    public var mixerVolume = 80
    /// Seconds between attempts to open a missing or vanished device.
    public var reopenInterval = 3.0
    /// SCHED_FIFO priority for the audio thread (1...99), nil for a normal thread. Needs
    /// CAP_SYS_NICE or LimitRTPRIO=; refused silently otherwise.
    public var realtimePriority: Int32? = nil
    /// Nice value of the thread that synthesizes the tunes after start (0...19): low, so a
    /// small board's frames come first.
    public var musicThreadNice: Int32 = 10
    public var voices = 16
    /// Master volume 0...1.
    public var masterVolume: Float = 1
    /// Music is this much quieter than its normalized level, relative to effects.
    public var musicGain: Float = 1
    /// Operator sound files: name (`Sound`/`Music` raw value) -> path.
    public var soundFiles: [String: String] = [:]

    public init() {}
}
