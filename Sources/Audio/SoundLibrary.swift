import Platform
import Synchronization

/// Every clip the games can ask for, made once: the synthesized set, with any sound the
/// operator replaced by a file. Effects are made at init; tunes at init too, or later on
/// a background thread (`renderMusic: false`, then `clip(_: Music)` makes what is missing).
public final class SoundLibrary: @unchecked Sendable {
    public private(set) var effects: [Sound: AudioClip] = [:]
    /// Guarded: a background thread may be adding tunes while the main thread reads.
    private let tunes = Mutex<[Music: AudioClip]>([:])
    /// Operator music files not read yet: decoded by whoever first asks for the tune (the
    /// engine's low-priority music thread), never on the run loop's thread.
    private let pendingTuneFiles = Mutex<[Music: String]>([:])
    public var music: [Music: AudioClip] { tunes.withLock { $0 } }
    /// Files that could not be used, each with its reason (their synthesized sound plays).
    public var loadErrors: [SoundFileError] { loadErrorList.withLock { $0 } }
    private let loadErrorList = Mutex<[SoundFileError]>([])

    /// overrides: sound or music name (`Sound`/`Music` raw values, e.g. "zombieHit",
    /// "beatZombies") -> file path.
    public convenience init(overrides: [String: String] = [:], renderMusic: Bool = true) {
        self.init()
        for sound in Sound.allCases { effects[sound] = Effects.render(sound) }
        apply(overrides)
        if renderMusic {
            for tune in Music.allCases { _ = clip(tune) }
        }
    }

    /// The clips of `base` with overrides applied: reloading the operator's files without
    /// synthesizing again.
    public convenience init(overrides: [String: String], base: SoundLibrary) {
        self.init()
        effects = base.effects
        let baseMusic = base.music
        tunes.withLock { $0 = baseMusic }
        apply(overrides)
    }

    private init() {}

    private func apply(_ overrides: [String: String]) {
        for (name, path) in overrides.sorted(by: { $0.key < $1.key }) {
            let sound = Sound(rawValue: name)
            let tune = Music(rawValue: name)
            guard sound != nil || tune != nil else {
                report(SoundFileError(path: path, reason: "no sound or music is called \"\(name)\""))
                continue
            }
            if let tune {
                pendingTuneFiles.withLock { $0[tune] = path }
                tunes.withLock { _ = $0.removeValue(forKey: tune) }   // a reload's old clip
                continue
            }
            do {
                // Effects are short: a long file here is a mistake, refused before it is read.
                let clip = try SoundFile.load(path, name: name, maxSeconds: SoundFile.maxEffectSeconds)
                if let sound { effects[sound] = clip }
                Log.info("audio: \(name) replaced by \(path)")
            } catch {
                report(error)
            }
        }
    }

    /// Finds operator files named after sounds in a directory: "zombieHit.wav",
    /// "menu.ogg", ... (wav, flac, ogg, oga, opus, mp3).
    public static func overrides(inDirectory directory: String) -> [String: String] {
        let known = Set(Sound.allCases.map(\.rawValue) + Music.allCases.map(\.rawValue))
        let extensions: Set<String> = ["wav", "flac", "ogg", "oga", "opus", "mp3"]
        var found: [String: String] = [:]
        for file in Files.listDirectory(directory) {
            guard let dot = file.lastIndex(of: ".") else { continue }
            let stem = String(file[..<dot])
            let ext = file[file.index(after: dot)...].lowercased()
            if known.contains(stem) && extensions.contains(ext) { found[stem] = directory + "/" + file }
        }
        return found
    }

    public func clip(_ sound: Sound) -> AudioClip { effects[sound]! }
    /// The tune, synthesized now if it is not there yet (any thread).
    public func clip(_ tune: Music) -> AudioClip {
        if let ready = readyClip(tune) { return ready }
        let made = operatorClip(tune) ?? Tunes.render(tune)
        return tunes.withLock { store in
            if let other = store[tune] { return other }  // made meanwhile by another thread
            store[tune] = made
            return made
        }
    }

    /// The operator's file for a tune, read now (once); nil: none, or it could not be used.
    private func operatorClip(_ tune: Music) -> AudioClip? {
        guard let path = pendingTuneFiles.withLock({ $0.removeValue(forKey: tune) }) else { return nil }
        do {
            let clip = try SoundFile.load(path, name: tune.rawValue)
            Log.info("audio: \(tune.rawValue) replaced by \(path)")
            return clip
        } catch {
            report(error)
            return nil
        }
    }

    /// The tune if it is made already.
    public func readyClip(_ tune: Music) -> AudioClip? { tunes.withLock { $0[tune] } }

    private func report(_ error: SoundFileError) {
        loadErrorList.withLock { $0.append(error) }
        Log.warning("audio: \(error); keeping the synthesized sound")
    }

}
