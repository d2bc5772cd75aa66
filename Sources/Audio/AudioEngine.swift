#if canImport(Glibc)
import Glibc
#endif
import Platform
import Synchronization

/// The kiosk's sound: the clips, the mixer and the ALSA sink thread, made from one config.
/// Create it on the main thread and call everything but the audio thread's work from there.
public final class AudioEngine {
    public let config: AudioConfig
    public let library: SoundLibrary
    public let mixer: Mixer
    public let sink: ALSASink
    /// What the Arcade hands to games.
    public let soundBoard: MixerSoundBoard

    /// Renders every effect and loads the operator's files (`config.soundFiles`): seconds on
    /// a small board, so the kiosk calls it off its run loop and makes the engine with the
    /// result. The tunes are left to the engine's music thread.
    public static func renderEffects(for config: AudioConfig) -> SoundLibrary {
        let started = monotonicSeconds()
        let library = SoundLibrary(overrides: config.soundFiles, renderMusic: false)
        Log.info("audio: \(Sound.allCases.count) effects ready in \(Int((monotonicSeconds() - started) * 1000)) ms")
        return library
    }

    /// Starts the audio thread on clips already made (config.soundFiles is not read again).
    /// A missing sound card is not an error: the engine runs silent and says so once. Tunes
    /// the library lacks are synthesized on a background thread (menu first), each starting
    /// to play as soon as it is ready if asked for.
    public init(config: AudioConfig, library: SoundLibrary, opener: @escaping PCMOpener = ALSAPCM.opener) throws(SystemError) {
        self.config = config
        self.library = library
        mixer = Mixer(voices: max(1, config.voices))
        mixer.setMasterVolume(config.masterVolume, fade: 0)
        soundBoard = MixerSoundBoard(mixer: mixer, library: library, musicGain: config.musicGain)
        sink = ALSASink(mixer: mixer, config: config, opener: opener)
        try sink.start()
        if Music.allCases.contains(where: { library.readyClip($0) == nil }) {
            musicMaker = try MusicMaker(library: library, mixer: mixer, nice: config.musicThreadNice)
        } else {
            musicMaker = nil
        }
    }

    private let musicMaker: MusicMaker?

    deinit {
        musicMaker?.finish()
        sink.stop()
    }

    /// True once every tune is made (they play as soon as each is ready regardless).
    public var musicReady: Bool { Music.allCases.allSatisfy { library.readyClip($0) != nil } }

    /// Master volume 0...1, ramped.
    public func setMasterVolume(_ volume: Float) { mixer.setMasterVolume(volume) }

    /// Fades everything out briefly, then stops the audio thread and closes the device.
    public func stop() {
        guard sink.state != .stopped else { return }
        mixer.stopAll(fadeOut: 0.02)
        var request = timespec(tv_sec: 0, tv_nsec: 40_000_000)
        nanosleep(&request, nil)
        musicMaker?.finish()
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

    /// Tunes already in the library go to the mixer's slots now; the rest arrive later
    /// through `Mixer.fillSlot` (see MusicMaker).
    public init(mixer: Mixer, library: SoundLibrary, musicGain: Float = 1) {
        self.mixer = mixer
        self.library = library
        self.musicGain = musicGain
        for tune in Music.allCases {
            if let clip = library.readyClip(tune) { mixer.fillSlot(MixerSoundBoard.slot(tune), with: clip) }
        }
    }

    /// Mixer slot of a tune.
    public static func slot(_ tune: Music) -> Int { Music.allCases.firstIndex(of: tune)! }

    public func play(_ sound: Sound, gain: Float, pan: Float) {
        mixer.play(library.clip(sound), gain: max(0, min(1, gain)), pan: pan)
    }

    public func playMusic(_ music: Music) {
        if music == currentMusic && musicVoice != .none {
            if musicPaused { resumeMusic() }
            return
        }
        if musicVoice != .none { mixer.stop(musicVoice, fadeOut: 0.6) }
        // By slot: a tune still being synthesized starts (fading in) when it is ready.
        musicVoice = mixer.playSlot(MixerSoundBoard.slot(music), gain: musicGain, loop: true, fadeIn: 0.4)
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

/// Synthesizes the tunes the library lacks on a low-priority thread, menu first, and hands
/// each to the mixer as it is done, so the kiosk starts without waiting for ~3 minutes of music.
final class MusicMaker: @unchecked Sendable {
    private let library: SoundLibrary
    private let mixer: Mixer
    private let cancelled = Atomic<Bool>(false)
    private var thread: pthread_t?
    private let nice: Int32

    init(library: SoundLibrary, mixer: Mixer, nice: Int32) throws(SystemError) {
        self.library = library
        self.mixer = mixer
        self.nice = max(0, min(19, nice))
        let context = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { raw in
            let maker = Unmanaged<MusicMaker>.fromOpaque(raw!).takeRetainedValue()
            nameCurrentThread("music")
            maker.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<MusicMaker>.fromOpaque(context).release()
            throw SystemError("pthread_create", "music", errno: rc)
        }
        thread = tid
    }

    private func run() {
        // Low CPU priority: the game's frames come first on a small board. (On Linux nice
        // values are per thread, and who = 0 names the calling thread.)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        let started = monotonicSeconds()
        for tune in Music.allCases where !cancelled.load(ordering: .relaxed) {
            mixer.fillSlot(MixerSoundBoard.slot(tune), with: library.clip(tune))
        }
        if !cancelled.load(ordering: .relaxed) {
            Log.info("audio: \(Music.allCases.count) tunes ready in \(Int((monotonicSeconds() - started) * 1000)) ms")
        }
    }

    /// Stops after the tune being made (if any) and waits for the thread.
    func finish() {
        cancelled.store(true, ordering: .relaxed)
        if let tid = thread {
            pthread_join(tid, nil)
            thread = nil
        }
    }
}
