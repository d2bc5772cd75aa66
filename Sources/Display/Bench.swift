import Graphics
import Platform
import ScreenGeometry
#if canImport(Glibc)
import Glibc
#endif

/// One copy-out measurement next to a plain memcpy of the same source bytes.
public struct CopyOutMeasurement: Sendable, CustomStringConvertible {
    public var name: String
    /// Shadow bytes the copy reads per frame.
    public var bytes: Int
    public var copyOutSeconds: Double
    public var memcpySeconds: Double
    public var ratio: Double { memcpySeconds > 0 ? copyOutSeconds / memcpySeconds : 0 }

    public var description: String {
        func ms(_ s: Double) -> String {
            let v = (s * 100_000).rounded() / 100
            return "\(v) ms"
        }
        let r = (ratio * 100).rounded() / 100
        return "\(name): copy-out \(ms(copyOutSeconds)), memcpy \(ms(memcpySeconds)) of \(bytes / 1024) KiB, ratio \(r)"
    }
}

/// The damage of a typical menu/game frame at 1280x800: a pressed button, the score, a
/// moving sprite; with two buffers each is copied with the previous frame's as well.
public func typicalFrameDamage() -> DamageRegion {
    var d = DamageRegion()
    for r in [PixelRect(80, 600, 240, 96), PixelRect(960, 24, 280, 64), PixelRect(500, 300, 136, 128),
              PixelRect(80, 480, 240, 96), PixelRect(520, 300, 136, 128)] {
        d.add(r)
    }
    return d
}

/// Copy-out cost per frame for full 1280x800 and 1920x1080 frames (upright, turned,
/// RGB565) and a typical damaged frame, each against memcpy of the same bytes. The
/// destination is ordinary memory here; a real write-combined buffer behaves like it for
/// writes, which is all copy-out does.
public func measureCopyOut(iterations: Int = 30) -> [CopyOutMeasurement] {
    struct Case { var name: String; var w: Int; var h: Int; var rotation: Rotation; var format: PixelFormat; var damage: DamageRegion? }
    let cases = [
        Case(name: "1280x800 full xrgb8888", w: 1280, h: 800, rotation: .deg0, format: .xrgb8888, damage: nil),
        Case(name: "1920x1080 full xrgb8888", w: 1920, h: 1080, rotation: .deg0, format: .xrgb8888, damage: nil),
        Case(name: "1280x800 full xrgb8888 rotated 90", w: 1280, h: 800, rotation: .deg90, format: .xrgb8888, damage: nil),
        Case(name: "1920x1080 full xrgb8888 rotated 90", w: 1920, h: 1080, rotation: .deg90, format: .xrgb8888, damage: nil),
        Case(name: "1280x800 full rgb565", w: 1280, h: 800, rotation: .deg0, format: .rgb565, damage: nil),
        Case(name: "1280x800 typical damaged frame xrgb8888", w: 1280, h: 800, rotation: .deg0, format: .xrgb8888,
             damage: typicalFrameDamage()),
    ]
    return cases.map { c in
        let shadow = Surface(width: c.w, height: c.h, format: .xrgb8888)
        shadow.clear(PixelRect(0, 0, c.w / 2, c.h), to: Color(hex: 0x3366CC))
        let panel = c.rotation.swapped(c.w, c.h)
        let scanout = Surface(width: panel.width, height: panel.height, format: c.format)
        let copyOut = CopyOut(destination: scanout, rotation: c.rotation)
        let region = c.damage ?? DamageRegion(shadow.bounds)

        let copySeconds = timePerIteration(iterations) { try? copyOut.copy(from: shadow, region: region) }

        // memcpy of the same source rows into ordinary memory.
        let target = UnsafeMutableRawPointer.allocate(byteCount: shadow.byteCount, alignment: 64)
        target.initializeMemory(as: UInt8.self, repeating: 0, count: shadow.byteCount)
        defer { target.deallocate() }
        let memcpySeconds = timePerIteration(iterations) {
            for r in region.rects {
                for y in r.y..<r.maxY {
                    let offset = y * shadow.stride + r.x * 4
                    memcpy(target + offset, shadow.pixels + offset, r.width * 4)
                }
            }
        }
        return CopyOutMeasurement(name: c.name, bytes: region.area * 4,
                                  copyOutSeconds: copySeconds, memcpySeconds: memcpySeconds)
    }
}

/// The best of three timed batches, per iteration: the least disturbed by other load.
private func timePerIteration(_ iterations: Int, _ body: () -> Void) -> Double {
    body()  // warm caches and pixman's fast-path lookup
    var best = Double.infinity
    for _ in 0..<3 {
        let start = monotonicSeconds()
        for _ in 0..<max(1, iterations) { body() }
        best = min(best, (monotonicSeconds() - start) / Double(max(1, iterations)))
    }
    return best
}

/// The report `boardwalk-bench` prints: one line per case.
public func copyOutBenchReport(iterations: Int = 30) -> String {
    measureCopyOut(iterations: iterations).map { "copy-out \($0)" }.joined(separator: "\n")
}
