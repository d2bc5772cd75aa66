import CopyKernels
import Graphics
import Platform
import ScreenGeometry
#if canImport(Glibc)
import Glibc
#endif

/// One copy-out measurement next to plain memcpys of the bytes it reads and writes.
public struct CopyOutMeasurement: Sendable {
    public var name: String
    /// Shadow bytes the copy reads per frame, and panel bytes it writes.
    public var bytes: Int
    public var destinationBytes: Int
    /// The copy as the kiosk makes it (a streamed one shared by two cores where there are
    /// two), and kept to the calling thread.
    public var copyOutSeconds: Double
    public var oneCoreSeconds: Double
    /// memcpy of the shadow bytes, and of the panel bytes (the same for xrgb8888).
    public var memcpySeconds: Double
    public var memcpyDestinationSeconds: Double
    /// Upright copies into rgb565 (by the kernels): the same reads and stores with each
    /// pixel only narrowed, no conversion (`bw_copy_rgb565_narrow_only`). Where the copy
    /// takes as long, its bytes bound it, not its arithmetic. With plain stores into a
    /// frame bigger than L2 it can take longer than the copy (less work per store runs
    /// slower there: docs/PERFORMANCE.md, fifteenth pass). nil for the other rows.
    public var narrowOnlySeconds: Double? = nil
    public var narrowOnlyDestinationRatio: Double? {
        narrowOnlySeconds.map { memcpyDestinationSeconds > 0 ? $0 / memcpyDestinationSeconds : 0 }
    }
    /// Upright damaged frames into rgb565: the copy and the memcpy of the bytes it writes
    /// as a board meets them, the panel's lines out of every cache (a scanout buffer is
    /// write-combined, never cached) and the shadow's in it (just drawn). In the rounds
    /// above, both sides write lines the round before left in L2, and the copy, reading
    /// twice the bytes it writes, pays for its reads. nil for the other rows.
    public var coldDestination: (copySeconds: Double, memcpySeconds: Double)? = nil
    public var coldDestinationRatio: Double? {
        coldDestination.map { $0.memcpySeconds > 0 ? $0.copySeconds / $0.memcpySeconds : 0 }
    }
    public var ratio: Double { memcpySeconds > 0 ? copyOutSeconds / memcpySeconds : 0 }
    public var oneCoreRatio: Double { memcpySeconds > 0 ? oneCoreSeconds / memcpySeconds : 0 }
    public var destinationRatio: Double { memcpyDestinationSeconds > 0 ? copyOutSeconds / memcpyDestinationSeconds : 0 }
}

/// The damage of a typical menu/game frame (a pressed button, the score, a moving
/// sprite; with two buffers each is copied with the previous frame's as well), laid out
/// for 1280x800 and scaled to `width` x `height`.
public func typicalFrameDamage(width: Int = 1280, height: Int = 800) -> DamageRegion {
    var d = DamageRegion()
    for r in [PixelRect(80, 600, 240, 96), PixelRect(960, 24, 280, 64), PixelRect(500, 300, 136, 128),
              PixelRect(80, 480, 240, 96), PixelRect(520, 300, 136, 128)] {
        d.add(PixelRect(r.x * width / 1280, r.y * height / 800, r.width * width / 1280, r.height * height / 800))
    }
    return d
}

/// Copy-out cost per frame: whole 1280x800 and 1920x1080 frames and typical damaged
/// frames, upright and turned 90/270, into xrgb8888 and rgb565 panels, each against memcpy
/// of the same bytes. The destination is ordinary memory here; a real write-combined
/// buffer behaves like it for writes, which is all copy-out does. Where this CPU's best
/// kernels are not the portable ones (AVX2 on x86_64), the turned whole frames are measured
/// on the portable path too (`portable path` rows): the code a Pi runs as NEON, here as SSE2.
public func measureCopyOut(iterations: Int = 30) -> [CopyOutMeasurement] {
    struct Case {
        var w: Int, h: Int, rotation: Rotation, format: PixelFormat, damaged: Bool
        var conversion = CopyOut.UprightConversion.kernel
        var portable = false
        var name: String {
            var n = "\(w)x\(h) \(damaged ? "typical damaged frame" : "full") \(format)"
            if rotation != .deg0 { n += " rotated \(rotation)" }
            if rotation == .deg0 && format == .rgb565 && conversion == .pixman { n += " by pixman" }
            if portable { n += " portable path" }
            return n
        }
    }
    let bestPath = bw_copy_select(Int32(BW_COPY_BEST))
    defer { _ = bw_copy_select(Int32(BW_COPY_BEST)) }
    var cases: [Case] = []
    for (w, h) in [(1280, 800), (1920, 1080)] {
        for damaged in [false, true] where !damaged || w == 1280 {
            cases.append(Case(w: w, h: h, rotation: .deg0, format: .xrgb8888, damaged: damaged))
            cases.append(Case(w: w, h: h, rotation: .deg0, format: .rgb565, damaged: damaged))
            cases.append(Case(w: w, h: h, rotation: .deg0, format: .rgb565, damaged: damaged, conversion: .pixman))
            for r in [Rotation.deg90, .deg270] {
                for f in [PixelFormat.xrgb8888, .rgb565] {
                    cases.append(Case(w: w, h: h, rotation: r, format: f, damaged: damaged))
                    if !damaged && bestPath != Int32(BW_COPY_PORTABLE) {
                        cases.append(Case(w: w, h: h, rotation: r, format: f, damaged: damaged, portable: true))
                    }
                }
            }
        }
    }
    return cases.map { c in
        let shadow = Surface(width: c.w, height: c.h, format: .xrgb8888)
        // Every shadow pixel written, as a drawn frame has them: pages never written are
        // all the kernel's one zero page, which reads from L1 and flatters both sides.
        shadow.clear(PixelRect(0, 0, c.w / 2, c.h), to: Color(hex: 0x3366CC))
        shadow.clear(PixelRect(c.w / 2, 0, c.w - c.w / 2, c.h), to: Color(hex: 0xF0A030))
        let panel = c.rotation.swapped(PixelSize(c.w, c.h))
        let scanout = Surface(width: panel.width, height: panel.height, format: c.format)
        let copyOut = CopyOut(destination: scanout, rotation: c.rotation)
        copyOut.uprightConversion = c.conversion
        let region = c.damaged ? typicalFrameDamage(width: c.w, height: c.h) : DamageRegion(shadow.bounds)

        // memcpy of the same source rows into ordinary memory, and of as many bytes per
        // row as the panel gets.
        let target = UnsafeMutableRawPointer.allocate(byteCount: shadow.byteCount, alignment: 64)
        target.initializeMemory(as: UInt8.self, repeating: 0, count: shadow.byteCount)
        defer { target.deallocate() }
        func memcpyRows(bytesPerPixel: Int) {
            for r in region.rects {
                for y in r.y..<r.maxY {
                    let offset = y * shadow.stride + r.x * 4
                    memcpy(target + offset, shadow.pixels + offset, r.width * bytesPerPixel)
                }
            }
        }
        _ = bw_copy_select(Int32(c.portable ? BW_COPY_PORTABLE : BW_COPY_BEST))
        let copy: () -> Void = { try? copyOut.copy(from: shadow, region: region) }
        // The same copy kept to the calling thread: what sharing with a second core gains.
        let copyOnOneCore: () -> Void = {
            _ = bw_copy_cores(Int32(BW_CORES_ONE))
            try? copyOut.copy(from: shadow, region: region)
            _ = bw_copy_cores(Int32(BW_CORES_BEST))
        }
        // Each copy after the same memcpys (whose written lines the copy then pushes out of
        // the cache): copy, memcpys, the copy on one core, the same memcpys again.
        var memcpys: [() -> Void] = [{ memcpyRows(bytesPerPixel: 4) }]
        if c.format != .xrgb8888 { memcpys.append { memcpyRows(bytesPerPixel: c.format.bytesPerPixel) } }
        // An upright conversion's bytes moved without it, after the same memcpys again.
        var narrowOnly: [() -> Void] = []
        if c.rotation == .deg0 && c.format == .rgb565 && c.conversion == .kernel {
            narrowOnly = [{ narrowOnlyCopy(from: shadow, to: scanout, region: region) }] + memcpys
        }
        // A damaged frame gets as many rounds as a whole frame's in pixels: its copy takes
        // about 10 us, and the fastest of 90 moved 0.98-1.28x memcpy from run to run.
        let rounds = 3 * iterations * max(1, c.w * c.h / max(1, region.area))
        let best = interleavedMinimum(rounds: rounds, ([copy] + memcpys + [copyOnOneCore] + memcpys + narrowOnly).map { Timed($0) })
        let n = memcpys.count
        let memcpySeconds = min(best[1], best[n + 2])
        let destinationSeconds = c.format == .xrgb8888 ? memcpySeconds : min(best[2], best[n + 3])
        var m = CopyOutMeasurement(name: c.name, bytes: region.area * 4,
                                   destinationBytes: region.area * c.format.bytesPerPixel,
                                   copyOutSeconds: best[0], oneCoreSeconds: best[n + 1], memcpySeconds: memcpySeconds,
                                   memcpyDestinationSeconds: destinationSeconds)
        if !narrowOnly.isEmpty { m.narrowOnlySeconds = best[2 * n + 2] }
        if c.damaged && !narrowOnly.isEmpty {
            let cacheSweep = CacheSweep()
            let asOnABoard = { cacheSweep.evictEverything(); readRows(of: shadow, in: region) }
            let cold = interleavedMinimum(rounds: 3 * iterations, [Timed(before: asOnABoard, copy),
                                                                Timed(before: asOnABoard, memcpys[1])])
            m.coldDestination = (cold[0], cold[1])
        }
        return m
    }
}

/// A buffer four times the last-level cache (at least 32 MB), read through: after a sweep
/// no line of anything else is in any cache, and none of its own is dirty (the timed
/// writes that follow evict clean lines, as on a board between frames).
private final class CacheSweep {
    let words = max(32 << 20, 4 * Int(bw_last_level_cache_bytes())) / 8
    let buffer: UnsafeMutablePointer<UInt64>
    init() {
        buffer = .allocate(capacity: words)
        buffer.initialize(repeating: 1, count: words)
    }
    deinit { buffer.deallocate() }
    func evictEverything() {
        var sum: UInt64 = 0
        for i in 0..<words { sum &+= buffer[i] }
        withExtendedLifetime(sum) {}
    }
}

/// Every pixel of `region` read once, as drawing it leaves its lines in the cache.
private func readRows(of surface: Surface, in region: DamageRegion) {
    var sum: UInt32 = 0
    for r in region.rects {
        for y in r.y..<r.maxY {
            let row = (surface.pixels + y * surface.stride + r.x * 4).assumingMemoryBound(to: UInt32.self)
            for x in 0..<r.width { sum &+= row[x] }
        }
    }
    withExtendedLifetime(sum) {}
}

/// An upright rgb565 panel's `region` filled from `shadow` by `bw_copy_rgb565_narrow_only`:
/// the reads and writes of the conversion without it.
private func narrowOnlyCopy(from shadow: Surface, to panel: Surface, region: DamageRegion) {
    let row = shadow.stride / 4
    for r in region.rects {
        let src = shadow.pixels.assumingMemoryBound(to: UInt32.self) + r.y * row + r.x
        let dst = panel.pixels + r.y * panel.stride + r.x * 2
        bw_copy_rgb565_narrow_only(dst.assumingMemoryBound(to: UInt16.self), panel.stride, src, row, Int32(r.width), Int32(r.height))
    }
}

/// A body to time, after untimed work that sets the caches up for it.
private struct Timed {
    let before: () -> Void
    let body: () -> Void
    init(before: @escaping () -> Void = {}, _ body: @escaping () -> Void) {
        self.before = before
        self.body = body
    }
}

/// Each body timed once per round, the bodies taking turns, and the fastest round of each:
/// the copy and its memcpy see the same load (this machine is shared), and the minimum is
/// the run least disturbed by it. (Batches of 30 timed together, the method before, let
/// one preemption land in one side's batch: memcpy against itself moved 0.2-1.4x.)
private func interleavedMinimum(rounds: Int, _ bodies: [Timed]) -> [Double] {
    for timed in bodies { timed.body() }  // warm caches and pixman's fast-path lookup
    var best = [Double](repeating: .infinity, count: bodies.count)
    for _ in 0..<max(1, rounds) {
        for (i, timed) in bodies.enumerated() {
            timed.before()
            let start = monotonicSeconds()
            timed.body()
            best[i] = min(best[i], monotonicSeconds() - start)
        }
    }
    return best
}
