import Platform

/// Every clip the games can ask for, made once at start: the synthesized set, with any
/// sound the operator replaced by a file. Read-only afterwards.
public final class SoundLibrary: @unchecked Sendable {
    public private(set) var effects: [Sound: AudioClip] = [:]
    public private(set) var music: [Music: AudioClip] = [:]
    /// Files that could not be used, each with its reason (their synthesized sound plays).
    public private(set) var loadErrors: [SoundFileError] = []

    /// overrides: sound or music name (`Sound`/`Music` raw values, e.g. "zombieHit",
    /// "beatZombies") -> file path.
    public init(overrides: [String: String] = [:]) {
        for sound in Sound.allCases { effects[sound] = Effects.render(sound) }
        for tune in Music.allCases { music[tune] = Tunes.render(tune) }
        for (name, path) in overrides.sorted(by: { $0.key < $1.key }) {
            let sound = Sound(rawValue: name)
            let tune = Music(rawValue: name)
            guard sound != nil || tune != nil else {
                report(SoundFileError(path: path, reason: "no sound or music is called \"\(name)\""))
                continue
            }
            do {
                let clip = try SoundFile.load(path, name: name)
                if let sound { effects[sound] = clip }
                if let tune { music[tune] = clip }
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
    public func clip(_ tune: Music) -> AudioClip { music[tune]! }

    private func report(_ error: SoundFileError) {
        loadErrors.append(error)
        Log.warning("audio: \(error); keeping the synthesized sound")
    }
}
