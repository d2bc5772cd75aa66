import Dispatch
import Synchronization
import XCTest
@testable import Display
import CopyKernels
import Graphics
import ScreenGeometry

/// The C copy kernels against a plain per-pixel reference (turns written out by hand,
/// truncating 565 conversion as pixman's SRC does) and against pixman's upright paths,
/// byte for byte, at odd sizes and with damage at the edges. Every check runs on each code
/// path this CPU has (the portable one, and AVX2 and AVX-512 where present).
final class CopyKernelTests: XCTestCase {
    /// Runs `body` once per kernel path this machine can run, with big copies streamed out
    /// (turned ones through the staging strip) by one core and shared with the helper
    /// thread, and with none streamed (which of these a frame gets depends on this
    /// machine's cache and cores), then goes back to the defaults.
    func onEveryPath(_ body: (String) throws -> Void) rethrows {
        defer {
            _ = bw_copy_select(Int32(BW_COPY_BEST))
            _ = bw_copy_stream(Int32(BW_STREAM_BY_CACHE))
            _ = bw_copy_cores(Int32(BW_CORES_BEST))
        }
        var ran = 0
        for (path, name) in [(BW_COPY_PORTABLE, "portable"), (BW_COPY_AVX2, "AVX2"), (BW_COPY_AVX512, "AVX-512")] {
            guard bw_copy_select(Int32(path)) == 1 else { continue }
            for (mode, cores, how) in [(BW_STREAM_BIG_COPIES, BW_CORES_ONE, "streamed"),
                                       (BW_STREAM_BIG_COPIES, BW_CORES_TWO, "streamed by two cores"),
                                       (BW_STREAM_NEVER, BW_CORES_ONE, "plain stores")] {
                XCTAssertEqual(bw_copy_stream(Int32(mode)), 1)
                XCTAssertEqual(bw_copy_cores(Int32(cores)), 1)
                ran += 1
                try body("\(name) \(how)")
            }
        }
        XCTAssertGreaterThan(ran, 0)
    }

    static let sizes = [PixelSize(1, 1), PixelSize(7, 13), PixelSize(1366, 768), PixelSize(1280, 800),
                        PixelSize(1920, 1080)]

    /// Every pixel its own value in all 24 colour bits (and junk in the unused top byte).
    func makeShadow(_ s: PixelSize) -> Surface {
        let shadow = Surface(width: s.width, height: s.height, format: .xrgb8888)
        for y in 0..<s.height {
            let row = (shadow.pixels + y * shadow.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<s.width {
                var v = UInt32(truncatingIfNeeded: x &* 0x9E3779B1 ^ y &* 0x85EBCA77)
                v ^= v >> 15
                row[x] = v &* 0x2C1B3C6D
            }
        }
        return shadow
    }

    /// The damaged frames to check: the whole frame, and strips and corners on every edge
    /// (some reaching past it, which copy-out clips).
    func regions(_ s: PixelSize) -> [DamageRegion] {
        let (w, h) = (s.width, s.height)
        var edges = DamageRegion()
        for r in [PixelRect(0, 0, w, 1), PixelRect(0, 0, 1, h), PixelRect(w - 1, 0, 1, h), PixelRect(0, h - 1, w, 1)] {
            edges.add(r)
        }
        var corners = DamageRegion()
        for r in [PixelRect(-2, -3, 5, 7), PixelRect(w - 3, h - 5, 9, 9), PixelRect(w - 6, -1, 11, 4),
                  PixelRect(-1, h - 2, 3, 6), PixelRect(w / 3, h / 3, 9, 5)] {
            corners.add(r)
        }
        var all = [DamageRegion(PixelRect(0, 0, w, h)), edges, corners]
        // Big rectangles starting off the 16-byte grid on every side: the kernels' aligned,
        // non-temporal part (copies of 256 KB and up) after a peeled head, with tails.
        for off in [1, 3] where w > 2 * off + 4 && h > 2 * off + 4 {
            all.append(DamageRegion(PixelRect(off, off + 1, w - 2 * off - 1, h - 2 * off - 2)))
        }
        // Turned, one 8 panel pixels in on either side: its rows start on the 16-byte grid
        // and end short of the panel's (streamed, its rows' heads and tails plain).
        if w > 8 && h > 24 { all.append(DamageRegion(PixelRect(2, 8, w - 5, h - 17))) }
        return all
    }

    /// The reference: each damaged logical pixel written where a clockwise turn puts it.
    func reference(_ shadow: Surface, _ region: DamageRegion, _ r: Rotation, into out: Surface) {
        let (w, h) = (shadow.width, shadow.height)
        for rect in region.rects {
            let c = rect.intersection(shadow.bounds)
            guard !c.isEmpty else { continue }
            for y in c.y..<c.maxY {
                let src = (shadow.pixels + y * shadow.stride).assumingMemoryBound(to: UInt32.self)
                for x in c.x..<c.maxX {
                    let (px, py): (Int, Int) = switch r {
                    case .deg0: (x, y)
                    case .deg90: (h - 1 - y, x)
                    case .deg180: (w - 1 - x, h - 1 - y)
                    case .deg270: (y, w - 1 - x)
                    }
                    let v = src[x]
                    let row = out.pixels + py * out.stride
                    if out.format == .rgb565 {
                        let p = (v >> 8) & 0xF800 | (v >> 5) & 0x07E0 | (v >> 3) & 0x001F
                        row.storeBytes(of: UInt16(truncatingIfNeeded: p), toByteOffset: px * 2, as: UInt16.self)
                    } else {
                        row.storeBytes(of: v, toByteOffset: px * 4, as: UInt32.self)
                    }
                }
            }
        }
    }

    func scanout(_ s: PixelSize, _ format: PixelFormat) -> Surface {
        let out = Surface(width: s.width, height: s.height, format: format)
        memset(out.pixels, 0xA5, out.byteCount)  // what was on screen before: must survive outside damage
        return out
    }

    /// The first differing pixel, or nil when the two panels hold the same bytes.
    static func firstDifference(_ a: Surface, _ b: Surface) -> (Int, Int)? {
        let rowBytes = a.width * a.format.bytesPerPixel
        for y in 0..<a.height where memcmp(a.pixels + y * a.stride, b.pixels + y * b.stride, rowBytes) != 0 {
            for x in 0..<a.width {
                let n = a.format.bytesPerPixel
                if memcmp(a.pixels + y * a.stride + x * n, b.pixels + y * b.stride + x * n, n) != 0 { return (x, y) }
            }
        }
        return nil
    }

    func testKernelsMatchTheReferenceForEveryRotationFormatAndEdge() throws {
        try onEveryPath { path in
            for size in Self.sizes {
                let shadow = makeShadow(size)
                for format in [PixelFormat.xrgb8888, .rgb565] {
                    for r in Rotation.allCases {
                        let panel = r.swapped(size)
                        for (n, region) in regions(size).enumerated() {
                            let out = scanout(panel, format), expected = scanout(panel, format)
                            try CopyOut(destination: out, rotation: r).copy(from: shadow, region: region)
                            reference(shadow, region, r, into: expected)
                            let diff = Self.firstDifference(out, expected)
                            XCTAssertNil(diff, "\(path) \(size) \(format) rotation \(r) region \(n) \(region.rects): first difference at panel \(String(describing: diff))")
                        }
                    }
                }
            }
        }
    }

    /// Scan-out buffers the kernels cannot store to aligned: pitches that are not a
    /// multiple of 16 bytes (rows differ in alignment: plain stores throughout) and buffers
    /// that start 4 bytes off the grid (every row's first pixels peeled off), or 16 bytes
    /// off: on AVX2's 32-byte grid only after a peeled head.
    func testKernelsMatchTheReferenceOnUnalignedScanoutBuffers() throws {
        try onEveryPath { path in
            for size in [PixelSize(7, 13), PixelSize(1280, 800), PixelSize(1366, 768)] {
                let shadow = makeShadow(size)
                for format in [PixelFormat.xrgb8888, .rgb565] {
                    for r in Rotation.allCases {
                        let panel = r.swapped(size)
                        let bpp = format.bytesPerPixel
                        // pixman wants whole 4-byte words per row.
                        for (strideExtra, startOffset) in [(4, 0), (8, 4), (16, 4), (32, 16)] {
                            let stride = (panel.width * bpp + 3) / 4 * 4 + strideExtra
                            let bytes = stride * panel.height + startOffset
                            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                            defer { memory.deallocate() }
                            memset(memory, 0xA5, bytes)
                            let out = Surface(wrapping: memory + startOffset, width: panel.width, height: panel.height,
                                              stride: stride, format: format)
                            let expected = scanout(panel, format)
                            for region in regions(size) {
                                try CopyOut(destination: out, rotation: r).copy(from: shadow, region: region)
                                reference(shadow, region, r, into: expected)
                            }
                            let diff = Self.firstDifference(out, expected)
                            XCTAssertNil(diff, "\(path) \(size) \(format) rotation \(r) stride +\(strideExtra) start +\(startOffset): first difference at panel \(String(describing: diff))")
                        }
                    }
                }
            }
        }
    }

    /// Two threads copying big frames at once (two displays, or a test beside the kiosk):
    /// one shares its copy with the helper thread, the other finds it busy and copies
    /// alone; both frames come out whole, every round.
    func testStreamedCopiesFromTwoThreadsAtOnce() throws {
        defer {
            _ = bw_copy_stream(Int32(BW_STREAM_BY_CACHE))
            _ = bw_copy_cores(Int32(BW_CORES_BEST))
        }
        XCTAssertEqual(bw_copy_stream(Int32(BW_STREAM_BIG_COPIES)), 1)
        XCTAssertEqual(bw_copy_cores(Int32(BW_CORES_TWO)), 1)
        let size = PixelSize(1280, 800)
        let shadow = makeShadow(size)
        let cases: [(Rotation, PixelFormat)] = [(.deg90, .xrgb8888), (.deg270, .rgb565), (.deg0, .rgb565), (.deg90, .rgb565)]
        let expected = cases.map { r, format in
            let out = scanout(r.swapped(size), format)
            reference(shadow, DamageRegion(shadow.bounds), r, into: out)
            return out
        }
        // Each thread's own panel; the shadow is only read. (Surfaces are not Sendable.)
        final class Copier: @unchecked Sendable {
            let shadow: Surface, out: Surface, expected: Surface, copyOut: CopyOut
            init(_ shadow: Surface, _ out: Surface, _ expected: Surface, _ r: Rotation) {
                (self.shadow, self.out, self.expected) = (shadow, out, expected)
                copyOut = CopyOut(destination: out, rotation: r)
            }
            /// Rounds with a wrong frame, of 20.
            func run() -> Int {
                (0..<20).filter { _ in
                    memset(out.pixels, 0xA5, out.byteCount)
                    try? copyOut.copy(from: shadow, region: DamageRegion(shadow.bounds))
                    return CopyKernelTests.firstDifference(out, expected) != nil
                }.count
            }
        }
        let copiers = cases.indices.map { i in
            Copier(shadow, scanout(cases[i].0.swapped(size), cases[i].1), expected[i], cases[i].0)
        }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: copiers.count) { i in
            failures.add(copiers[i].run(), ordering: .relaxed)
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0, "rounds with a wrong frame")
    }

    /// The upright rgb565 kernel against pixman's SRC conversion it replaced.
    func testUprightRGB565KernelMatchesPixman() throws {
        try onEveryPath { path in
            for size in Self.sizes {
                let shadow = makeShadow(size)
                for region in regions(size) {
                    let byKernel = scanout(size, .rgb565), byPixman = scanout(size, .rgb565)
                    let kernel = CopyOut(destination: byKernel, rotation: .deg0)
                    kernel.uprightConversion = .kernel
                    try kernel.copy(from: shadow, region: region)
                    let pixman = CopyOut(destination: byPixman, rotation: .deg0)
                    pixman.uprightConversion = .pixman
                    try pixman.copy(from: shadow, region: region)
                    XCTAssertNil(Self.firstDifference(byKernel, byPixman), "\(path) \(size) \(region.rects)")
                }
            }
        }
    }
}
