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
    /// Longer files are refused: a 10-minute stereo clip is already 110 MB of samples.
    public static let maxSeconds = 600.0

    public static func load(_ path: String, name: String? = nil) throws(SoundFileError) -> AudioClip {
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
        guard info.frames > 0 else { throw SoundFileError(path: path, reason: "no audio in the file") }
        guard Double(info.frames) / Double(rate) <= maxSeconds else {
            throw SoundFileError(path: path, reason: "longer than \(Int(maxSeconds)) s")
        }
        // sf_readf_float scales integer formats to -1...1.
        var raw = [Float](repeating: 0, count: Int(info.frames) * channels)
        let read = raw.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, info.frames) }
        guard read > 0 else {
            throw SoundFileError(path: path, reason: "cannot decode: \(String(cString: sf_strerror(file)))")
        }
        let frames = Int(read)
        let outChannels = min(channels, 2)
        var planar: [[Float]] = (0..<outChannels).map { c in
            (0..<frames).map { raw[$0 * channels + c] }
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
