import XCTest
@testable import Audio

/// The full synthesized set, rendered once per test process (it takes a while in debug builds).
enum Shared {
    static let library = SoundLibrary()
}

func sineClip(frequency: Double, amplitude: Float, seconds: Double, channels: Int = 1, name: String = "sine") -> AudioClip {
    let frames = Int(seconds * 48000)
    var samples: [Float] = []
    samples.reserveCapacity(frames * channels)
    for i in 0..<frames {
        let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / 48000))
        for _ in 0..<channels { samples.append(v) }
    }
    return AudioClip(name: name, channels: channels, interleaved: samples)
}

func renderFloat(_ mixer: Mixer, frames: Int) -> [Float] {
    var out = [Float](repeating: 0, count: frames * 2)
    out.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: frames) }
    return out
}

func renderInt16(_ mixer: Mixer, frames: Int) -> [Int16] {
    var out = [Int16](repeating: 0, count: frames * 2)
    out.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: frames) }
    return out
}

func left(_ interleaved: [Float]) -> [Float] { stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] } }
func right(_ interleaved: [Float]) -> [Float] { stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] } }
func peak(_ values: [Float]) -> Float { values.map(abs).max() ?? 0 }
func rms(_ values: [Float]) -> Float {
    values.isEmpty ? 0 : (values.reduce(0) { $0 + $1 * $1 } / Float(values.count)).squareRoot()
}
/// Largest sample-to-sample step: a click shows up as a step much larger than the signal's own.
func maxStep(_ values: ArraySlice<Float>) -> Float {
    var result: Float = 0
    var previous = values.first ?? 0
    for v in values { result = max(result, abs(v - previous)); previous = v }
    return result
}
