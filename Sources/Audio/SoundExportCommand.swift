import Platform

/// `boardwalk sound-export DIR [NAME...]`: writes the built-in sounds as 16-bit 48 kHz
/// wav files named as an operator's replacement would be ("zombieHit.wav", "menu.wav"),
/// so they can be heard, analysed with sox, or compared with a recording (the system
/// test looks for zombieHit in what the virtual board's sound card played).
public func soundExportMain(_ arguments: [String]) -> Int32 {
    guard let directory = arguments.first, !directory.hasPrefix("-") else {
        Log.error("usage: boardwalk sound-export DIR [NAME...]   (names: "
                  + (Sound.allCases.map(\.rawValue) + Music.allCases.map(\.rawValue)).joined(separator: " ") + ")")
        return 2
    }
    var names = Array(arguments.dropFirst())
    if names.isEmpty { names = Sound.allCases.map(\.rawValue) + Music.allCases.map(\.rawValue) }
    let unknown = names.filter { Sound(rawValue: $0) == nil && Music(rawValue: $0) == nil }
    guard unknown.isEmpty else {
        Log.error("sound-export: no sound or music is called \(unknown.joined(separator: ", "))")
        return 2
    }
    do {
        try Files.makeDirectories(directory)
        for name in names {
            let started = monotonicSeconds()
            let clip = Sound(rawValue: name).map(Effects.render) ?? Tunes.render(Music(rawValue: name)!)
            let path = directory + "/" + name + ".wav"
            try WAVWriter.write(clip, to: path)
            let ms = Int((monotonicSeconds() - started) * 1000)
            print("\(path): \(String(format1: clip.duration)) s, made in \(ms) ms")
        }
    } catch {
        Log.error("sound-export: \(error)")
        return 1
    }
    return 0
}

private extension String {
    /// One decimal place, without Foundation's String(format:).
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
