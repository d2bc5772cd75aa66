import Platform

/// 16-bit PCM RIFF/WAVE files: how synthesized sounds are inspected with sox and how
/// tests make input files.
public enum WAVWriter {
    public static func encode(_ clip: AudioClip) -> [UInt8] {
        encode(samples: UnsafeBufferPointer(start: clip.samples, count: clip.frames * clip.channels),
               channels: clip.channels, sampleRate: AudioFormat.sampleRate)
    }

    public static func encode(samples: UnsafeBufferPointer<Int16>, channels: Int, sampleRate: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        let dataSize = samples.count * 2
        bytes.reserveCapacity(44 + dataSize)
        func u32(_ v: Int) { for s in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((v >> s) & 0xFF)) } }
        func u16(_ v: Int) { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8((v >> 8) & 0xFF)) }
        bytes += Array("RIFF".utf8); u32(36 + dataSize); bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8); u32(16); u16(1); u16(channels); u32(sampleRate)
        u32(sampleRate * channels * 2); u16(channels * 2); u16(16)
        bytes += Array("data".utf8); u32(dataSize)
        for s in samples {
            let v = UInt16(bitPattern: s)
            bytes.append(UInt8(v & 0xFF))
            bytes.append(UInt8(v >> 8))
        }
        return bytes
    }

    public static func write(_ clip: AudioClip, to path: String) throws(SystemError) {
        try Files.writeAtomically(path, bytes: encode(clip))
    }

    /// Float samples (interleaved, -1...1) at any rate, e.g. test input for the resampler.
    public static func write(interleaved: [Float], channels: Int, sampleRate: Int, to path: String) throws(SystemError) {
        let ints = interleaved.map { Int16((max(-1, min(1, $0)) * 32767).rounded()) }
        let bytes = ints.withUnsafeBufferPointer { encode(samples: $0, channels: channels, sampleRate: sampleRate) }
        try Files.writeAtomically(path, bytes: bytes)
    }
}

/// Writes every effect and tune to `<directory>/<name>.wav` (for listening and for
/// `sox NAME.wav -n stat`): freshly synthesized, or a library's clips (what the kiosk
/// plays, operator files included). Returns the paths written.
@discardableResult
public func renderSoundsToWAV(directory: String, library: SoundLibrary? = nil) throws(SystemError) -> [String] {
    try Files.makeDirectories(directory)
    var paths: [String] = []
    for sound in Sound.allCases {
        let path = "\(directory)/\(sound.rawValue).wav"
        try WAVWriter.write(library?.clip(sound) ?? Effects.render(sound), to: path)
        paths.append(path)
    }
    for music in Music.allCases {
        let path = "\(directory)/music-\(music.rawValue).wav"
        try WAVWriter.write(library?.clip(music) ?? Tunes.render(music), to: path)
        paths.append(path)
    }
    return paths
}
