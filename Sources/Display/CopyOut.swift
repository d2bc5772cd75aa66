import CPixman
import Graphics
import ScreenGeometry

/// Copies damaged regions of a logical shadow surface into one scan-out surface, turning
/// and converting on the way. One per scan-out buffer, made once.
///
/// Upright copies go through pixman (SRC: its blit and 8888->565 fast paths). Turned ones
/// use a tiled loop here: pixman 0.42 took its generic per-pixel path for our nearest
/// 90/270 transforms (8 ms for 1280x800 against 1.6 ms for a tiled loop, measured).
/// Neither reads the destination, which matters: a mapped dumb buffer is often uncached,
/// write-combined memory where reads are very slow; destination rows are written in
/// whole 64-byte runs so write-combining works.
public final class CopyOut {
    public let rotation: Rotation
    public let destination: Surface
    private let target: PixmanView
    private var source: PixmanView?

    public init(destination: Surface, rotation: Rotation) {
        self.destination = destination
        self.rotation = rotation
        self.target = PixmanView(destination)
    }

    /// The logical size this destination expects of its shadow.
    public var logicalWidth: Int { rotation.swapped(panelSize).width }
    public var logicalHeight: Int { rotation.swapped(panelSize).height }
    private var panelSize: PixelSize { PixelSize(destination.width, destination.height) }

    /// Copies `region` (logical pixels, clipped to the shadow) of `shadow`.
    /// The shadow must be `logicalWidth` x `logicalHeight`.
    public func copy(from shadow: Surface, region: DamageRegion) throws(DisplayError) {
        guard shadow.width == logicalWidth, shadow.height == logicalHeight else {
            throw .shadowSizeMismatch(expected: "\(logicalWidth)x\(logicalHeight)",
                                      got: "\(shadow.width)x\(shadow.height)")
        }
        let logicalSize = PixelSize(shadow.width, shadow.height)
        for rect in region.rects {
            let r = rect.intersection(shadow.bounds)
            if r.isEmpty { continue }
            if rotation == .deg0 {
                let view = sourceView(for: shadow)
                pixman_image_composite32(PIXMAN_OP_SRC, view.image, nil, target.image,
                                         Int32(r.x), Int32(r.y), 0, 0, Int32(r.x), Int32(r.y),
                                         Int32(r.width), Int32(r.height))
            } else {
                copyTurned(from: shadow, to: rotation.panelRect(r, logicalSize: logicalSize))
            }
        }
    }

    /// Fills panel rectangle `d` from the shadow, walking the panel row by row in tiles
    /// (the shadow is read across rows, so tiles keep its lines in cache).
    private func copyTurned(from shadow: Surface, to d: PixelRect) {
        let srcStride = shadow.stride
        let scan = rotation.scan(panelSize: panelSize)
        let srcStep = scan.alongRowX * 4 + scan.alongRowY * srcStride   // bytes per panel pixel to the right
        let src = UnsafeRawPointer(shadow.pixels)
        let dst = destination.pixels
        let dstStride = destination.stride
        let tile = 32
        let to565 = destination.format == .rgb565
        var ty = d.y
        while ty < d.maxY {
            let tyEnd = min(ty + tile, d.maxY)
            var tx = d.x
            while tx < d.maxX {
                let count = min(tile, d.maxX - tx)
                for py in ty..<tyEnd {
                    let (lx, ly) = scan.logicalPixel(px: tx, py: py)
                    var s = src + ly * srcStride + lx * 4
                    let row = dst + py * dstStride
                    if to565 {
                        var o = row.assumingMemoryBound(to: UInt16.self) + tx
                        for _ in 0..<count {
                            let v = s.load(as: UInt32.self)
                            o.pointee = UInt16(truncatingIfNeeded: (v >> 8) & 0xF800 | (v >> 5) & 0x07E0 | (v >> 3) & 0x001F)
                            o += 1
                            s += srcStep
                        }
                    } else {
                        var o = row.assumingMemoryBound(to: UInt32.self) + tx
                        for _ in 0..<count {
                            o.pointee = s.load(as: UInt32.self)
                            o += 1
                            s += srcStep
                        }
                    }
                }
                tx += count
            }
            ty = tyEnd
        }
    }

    /// A pixman image over the shadow's pixels, kept while the caller keeps presenting
    /// the same shadow (holding it keeps its memory alive).
    private func sourceView(for shadow: Surface) -> PixmanView {
        if let source, source.surface === shadow { return source }
        let view = PixmanView(shadow)
        source = view
        return view
    }
}

/// A pixman image of our own over a Surface's pixels (Graphics keeps its image private).
/// Holds the surface.
final class PixmanView {
    let surface: Surface
    let image: OpaquePointer

    init(_ surface: Surface) {
        self.surface = surface
        let format: pixman_format_code_t = switch surface.format {
        case .xrgb8888: PIXMAN_x8r8g8b8
        case .argb8888: PIXMAN_a8r8g8b8
        case .rgb565: PIXMAN_r5g6b5
        case .a8: PIXMAN_a8
        }
        image = pixman_image_create_bits(
            format, Int32(surface.width), Int32(surface.height),
            surface.pixels.assumingMemoryBound(to: UInt32.self), Int32(surface.stride))!
    }

    deinit { pixman_image_unref(image) }
}
