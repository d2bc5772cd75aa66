#if canImport(Glibc)
import Glibc
#endif
import CSndfile

/// Why an operator's sound file was not used (the synthesized sound plays instead).
public struct SoundFileError: Error, CustomStringConvertible, Equatable, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "sound file \(path): \(reason)" }
}

/// Operator-supplied sounds: WAV, FLAC, Ogg (Vorbis/Opus) and MP3 read with libsndfile,
/// converted once, at load, to the mixer's 48 kHz (windowed-sinc resampling) and to mono or
/// stereo (more channels: the first two).
public enum SoundFile {
    /// Longer files are refused (music; an effect gets `maxEffectSeconds`).
    public static let maxSeconds = 240.0
    public static let maxEffectSeconds = 10.0
    /// The most decoded samples one file may become, at its own rate and at 48 kHz alike
    /// (4 bytes a sample, two channels kept): 4 minutes of 48 kHz stereo. Checked against
    /// the header before anything is allocated, so a header that claims hours of 8-channel
    /// audio, or a high rate, is refused instead of taking the board's memory.
    public static let maxDecodedBytes = 96 * 1024 * 1024
    /// Frames read per call: the only buffer sized by the file's channel count.
    static let chunkFrames = 4096

    /// Why a file of `frames` frames of `channels` at `rate` Hz is refused; nil: it fits.
    public static func sizeProblem(frames: Int64, channels: Int, rate: Int, maxSeconds: Double) -> String? {
        guard frames > 0 else { return "no audio in the file" }
        let seconds = Double(frames) / Double(rate)
        let kept = Double(min(channels, 2))
        let bytes = max(Double(frames), seconds * Double(AudioFormat.sampleRate)) * kept * 4
        if seconds > maxSeconds || bytes > Double(maxDecodedBytes) {
            let megabytes = Int((bytes / 1_048_576).rounded(.up))
            return "its header claims \(Int(seconds.rounded())) s of \(channels)-channel audio at \(rate) Hz "
                + "(\(megabytes) MB decoded); the limit is \(Int(maxSeconds)) s and \(maxDecodedBytes / 1_048_576) MB"
        }
        return nil
    }

    public static func load(_ path: String, name: String? = nil,
                            maxSeconds: Double = SoundFile.maxSeconds) throws(SoundFileError) -> AudioClip {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw SoundFileError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let rate = Int(info.samplerate)
        guard channels >= 1, rate >= 1000, rate <= 768_000 else {
            throw SoundFileError(path: path, reason: "unusable format (\(channels) channels at \(rate) Hz)")
        }
        if let problem = sizeProblem(frames: Int64(info.frames), channels: channels, rate: rate, maxSeconds: maxSeconds) {
            throw SoundFileError(path: path, reason: problem)
        }
        // Read in chunks, keeping the first two channels: memory follows what is kept, not
        // the file's channel count. sf_readf_float scales integer formats to -1...1.
        let outChannels = min(channels, 2)
        var planar: [[Float]] = Array(repeating: [], count: outChannels)
        for c in 0..<outChannels { planar[c].reserveCapacity(Int(info.frames)) }
        var chunk = [Float](repeating: 0, count: chunkFrames * channels)
        while planar[0].count < Int(info.frames) {
            let read = chunk.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(chunkFrames)) }
            guard read > 0 else { break }
            for f in 0..<Int(read) {
                for c in 0..<outChannels { planar[c].append(chunk[f * channels + c]) }
            }
        }
        guard !planar[0].isEmpty else {
            throw SoundFileError(path: path, reason: "cannot decode: \(String(cString: sf_strerror(file)))")
        }
        if rate != AudioFormat.sampleRate {
            planar = planar.map { resample($0, from: rate, to: AudioFormat.sampleRate) }
        }
        let outFrames = planar[0].count
        var interleaved = [Float](repeating: 0, count: outFrames * outChannels)
        for f in 0..<outFrames {
            for c in 0..<outChannels { interleaved[f * outChannels + c] = planar[c][f] }
        }
        let base = String(path.split(separator: "/").last ?? Substring(path))
        return AudioClip(name: name ?? base, channels: outChannels, interleaved: interleaved)
    }

    /// Band-limited resampling: a Blackman-windowed sinc, 32 zero crossings wide, with the
    /// cutoff lowered to the target's Nyquist when downsampling so nothing aliases.
    public static func resample(_ input: [Float], from sourceRate: Int, to targetRate: Int) -> [Float] {
        guard sourceRate != targetRate, !input.isEmpty else { return input }
        let ratio = Double(targetRate) / Double(sourceRate)
        let outCount = max(1, Int((Double(input.count) * ratio).rounded()))
        let cutoff = min(1, ratio) * 0.97
        let halfWidth = 16.0 / cutoff  // input samples on each side
        // The kernel, tabulated at 1/256 input sample so each tap is a lookup, not a sin().
        let steps = 256.0
        let tableCount = Int(halfWidth * steps) + 2
        var table = [Double](repeating: 0, count: tableCount)
        for k in 0..<tableCount {
            let x = Double(k) / steps
            let sinc = x == 0 ? 1 : sin(.pi * x * cutoff) / (.pi * x * cutoff)
            let w = min(1, x / halfWidth)
            table[k] = sinc * (0.42 + 0.5 * cos(.pi * w) + 0.08 * cos(2 * .pi * w)) * cutoff
        }
        var output = [Float](repeating: 0, count: outCount)
        input.withUnsafeBufferPointer { src in
            table.withUnsafeBufferPointer { kernel in
                let n = src.count
                for i in 0..<outCount {
                    let center = Double(i) / ratio
                    let first = max(0, Int((center - halfWidth).rounded(.up)))
                    let last = min(n - 1, Int((center + halfWidth).rounded(.down)))
                    guard first <= last else { continue }
                    var sum = 0.0
                    for j in first...last {
                        let position = abs(Double(j) - center) * steps
                        let k = Int(position)
                        guard k + 1 < tableCount else { continue }
                        let fraction = position - Double(k)
                        let weight = kernel[k] + (kernel[k + 1] - kernel[k]) * fraction
                        sum += Double(src[j]) * weight
                    }
                    output[i] = Float(sum)
                }
            }
        }
        return output
    }
}
