import CopyKernels
import CPixman
import Graphics
import ScreenGeometry

/// Copies damaged regions of a logical shadow surface into one scan-out surface, turning
/// and converting on the way. One per scan-out buffer, made once.
///
/// Upright xrgb8888 copies go through pixman's SRC blit (memcpy speed). Everything else
/// (turned, or converted to rgb565) goes through the C kernels of `CopyKernels`: tiles that
/// fit L1, 4x4 blocks transposed in vector registers, no per-pixel division or bounds
/// check (pixman 0.42 takes its generic per-pixel path for 90/270 transforms, and its
/// 8888->565 SRC path measured slower than the kernel). Neither reads the destination,
/// which matters: a mapped dumb buffer is often uncached, write-combined memory where
/// reads are very slow; destination rows are written front to back, and whole turned
/// frames one panel row after another with non-temporal stores (see CopyKernels.c).
public final class CopyOut {
    public let rotation: Rotation
    public let destination: Surface
    /// Which code copies upright frames into an rgb565 destination (the bench measures both).
    public enum UprightConversion: Sendable { case pixman, kernel }
    public var uprightConversion: UprightConversion = .kernel
    private let target: PixmanView
    private var source: PixmanView?

    public init(destination: Surface, rotation: Rotation) {
        precondition(destination.format == .xrgb8888 || destination.format == .rgb565,
                     "copy-out writes xrgb8888 or rgb565 scan-out buffers")
        self.destination = destination
        self.rotation = rotation
        self.target = PixmanView(destination)
    }

    /// The logical size this destination expects of its shadow.
    public var logicalWidth: Int { rotation.swapped(panelSize).width }
    public var logicalHeight: Int { rotation.swapped(panelSize).height }
    private var panelSize: PixelSize { PixelSize(destination.width, destination.height) }

    /// Copies `region` (logical pixels, clipped to the shadow) of `shadow`.
    /// The shadow must be `logicalWidth` x `logicalHeight`, xrgb8888.
    public func copy(from shadow: Surface, region: DamageRegion) throws(DisplayError) {
        guard shadow.width == logicalWidth, shadow.height == logicalHeight else {
            throw .shadowSizeMismatch(expected: "\(logicalWidth)x\(logicalHeight)",
                                      got: "\(shadow.width)x\(shadow.height)")
        }
        let logicalSize = PixelSize(shadow.width, shadow.height)
        for rect in region.rects {
            let r = rect.intersection(shadow.bounds)
            if r.isEmpty { continue }
            if rotation == .deg0 && (destination.format == .xrgb8888 || uprightConversion == .pixman) {
                let view = sourceView(for: shadow)
                pixman_image_composite32(PIXMAN_OP_SRC, view.image, nil, target.image,
                                         Int32(r.x), Int32(r.y), 0, 0, Int32(r.x), Int32(r.y),
                                         Int32(r.width), Int32(r.height))
            } else {
                copyWithKernel(from: shadow, to: rotation.panelRect(r, logicalSize: logicalSize))
            }
        }
    }

    /// Fills panel rectangle `d` from the shadow: the kernel walks the shadow by the
    /// rotation's scan, in pixels (the shadow's stride is a whole number of pixels).
    private func copyWithKernel(from shadow: Surface, to d: PixelRect) {
        precondition(shadow.format == .xrgb8888 && shadow.stride % 4 == 0)
        let scan = rotation.scan(panelSize: panelSize)
        let row = shadow.stride / 4
        let (lx, ly) = scan.logicalPixel(px: d.x, py: d.y)
        let src = shadow.pixels.assumingMemoryBound(to: UInt32.self) + ly * row + lx
        let along = scan.alongRowX + scan.alongRowY * row
        let across = scan.acrossRowsX + scan.acrossRowsY * row
        let dst = destination.pixels + d.y * destination.stride + d.x * destination.format.bytesPerPixel
        switch destination.format {
        case .rgb565:
            bw_copy_rgb565(dst.assumingMemoryBound(to: UInt16.self), destination.stride, src,
                           along, across, Int32(d.width), Int32(d.height))
        default:
            bw_copy_xrgb8888(dst.assumingMemoryBound(to: UInt32.self), destination.stride, src,
                             along, across, Int32(d.width), Int32(d.height))
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
