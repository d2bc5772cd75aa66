#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The kiosk's sound: the clips, the mixer and the ALSA sink thread, made from one config.
/// Create it on the main thread and call everything but the audio thread's work from there.
public final class AudioEngine {
    public let config: AudioConfig
    public let library: SoundLibrary
    public let mixer: Mixer
    public let sink: ALSASink
    /// What the Arcade hands to games.
    public let soundBoard: MixerSoundBoard

    /// Renders every sound (and loads the operator's files), then starts the audio thread.
    /// A missing sound card is not an error: the engine runs silent and says so once.
    public init(config: AudioConfig, opener: @escaping PCMOpener = ALSAPCM.opener) throws(SystemError) {
        self.config = config
        let started = monotonicSeconds()
        library = SoundLibrary(overrides: config.soundFiles)
        Log.info("audio: \(Sound.allCases.count) effects and \(Music.allCases.count) tunes ready in \(Int((monotonicSeconds() - started) * 1000)) ms")
        mixer = Mixer(voices: max(1, config.voices))
        mixer.setMasterVolume(config.masterVolume, fade: 0)
        soundBoard = MixerSoundBoard(mixer: mixer, library: library, musicGain: config.musicGain)
        sink = ALSASink(mixer: mixer, config: config, opener: opener)
        try sink.start()
    }

    deinit { sink.stop() }

    /// Master volume 0...1, ramped.
    public func setMasterVolume(_ volume: Float) { mixer.setMasterVolume(volume) }

    /// Fades everything out briefly, then stops the audio thread and closes the device.
    public func stop() {
        guard sink.state != .stopped else { return }
        mixer.stopAll(fadeOut: 0.02)
        var request = timespec(tv_sec: 0, tv_nsec: 40_000_000)
        nanosleep(&request, nil)
        sink.stop()
    }

    /// Tap-to-sound latencies measured since the last call, in seconds.
    public func takeLatencies() -> [Double] {
        var result: [Double] = []
        while let value = sink.latencies.pop() { result.append(value) }
        return result
    }
}

/// The games' SoundBoard on the mixer: effects as one-shot voices, one music voice that
/// crossfades when the tune changes.
public final class MixerSoundBoard: SoundBoard {
    private let mixer: Mixer
    private let library: SoundLibrary
    private let musicGain: Float
    private var musicVoice = VoiceHandle.none
    private var currentMusic: Music?
    private var musicPaused = false

    public init(mixer: Mixer, library: SoundLibrary, musicGain: Float = 1) {
        self.mixer = mixer
        self.library = library
        self.musicGain = musicGain
    }

    public func play(_ sound: Sound, gain: Float, pan: Float) {
        mixer.play(library.clip(sound), gain: max(0, min(1, gain)), pan: pan)
    }

    public func playMusic(_ music: Music) {
        if music == currentMusic && musicVoice != .none {
            if musicPaused { resumeMusic() }
            return
        }
        if musicVoice != .none { mixer.stop(musicVoice, fadeOut: 0.6) }
        musicVoice = mixer.play(library.clip(music), gain: musicGain, loop: true, fadeIn: 0.4)
        currentMusic = music
        musicPaused = false
    }

    public func pauseMusic() {
        guard musicVoice != .none, !musicPaused else { return }
        mixer.pause(musicVoice, fade: 0.15)
        musicPaused = true
    }

    public func resumeMusic() {
        guard musicVoice != .none, musicPaused else { return }
        mixer.resume(musicVoice, fade: 0.3)
        musicPaused = false
    }

    public func stopMusic() {
        guard musicVoice != .none else { return }
        mixer.stop(musicVoice, fadeOut: 0.6)
        musicVoice = .none
        currentMusic = nil
        musicPaused = false
    }
}
