import CPixman
import Graphics

/// Copies damaged regions of a logical shadow surface into one scan-out surface, turning
/// and converting on the way (pixman: SRC, nearest filter, a rotation transform; its fast
/// paths cover 8888 and 565 rotations by 90/270). One per scan-out buffer, made once.
///
/// SRC never reads the destination, which matters: a mapped dumb buffer is often
/// uncached, write-combined memory where reads are very slow.
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
    public var logicalWidth: Int { rotation.swapped(destination.width, destination.height).width }
    public var logicalHeight: Int { rotation.swapped(destination.width, destination.height).height }

    /// Copies `region` (logical pixels, clipped to the shadow) of `shadow`.
    /// The shadow must be `logicalWidth` x `logicalHeight`.
    public func copy(from shadow: Surface, region: DamageRegion) throws(DisplayError) {
        guard shadow.width == logicalWidth, shadow.height == logicalHeight else {
            throw .shadowSizeMismatch(expected: "\(logicalWidth)x\(logicalHeight)",
                                      got: "\(shadow.width)x\(shadow.height)")
        }
        let view = sourceView(for: shadow)
        let w = shadow.width, h = shadow.height
        for rect in region.rects {
            let r = rect.intersection(shadow.bounds)
            if r.isEmpty { continue }
            let d = rotation.panelRect(r, logicalWidth: w, logicalHeight: h)
            // With the source transform mapping panel to logical coordinates, source and
            // destination origins coincide.
            pixman_image_composite32(PIXMAN_OP_SRC, view.image, nil, target.image,
                                     Int32(d.x), Int32(d.y), 0, 0, Int32(d.x), Int32(d.y),
                                     Int32(d.width), Int32(d.height))
        }
    }

    /// A pixman image over the shadow's pixels carrying the rotation; kept while the
    /// caller keeps presenting the same shadow (holding it keeps its memory alive).
    private func sourceView(for shadow: Surface) -> PixmanView {
        if let source, source.surface === shadow { return source }
        let view = PixmanView(shadow)
        if rotation != .deg0 {
            var t = CopyOut.transform(rotation, logicalWidth: shadow.width, logicalHeight: shadow.height)
            pixman_image_set_transform(view.image, &t)
            pixman_image_set_filter(view.image, PIXMAN_FILTER_NEAREST, nil, 0)
        }
        source = view
        return view
    }

    /// Maps panel pixel centres to logical ones (the inverse of `Rotation.panelPoint`).
    static func transform(_ rotation: Rotation, logicalWidth w: Int, logicalHeight h: Int) -> pixman_transform_t {
        let one: pixman_fixed_t = 0x10000
        let fw = pixman_fixed_t(w) << 16, fh = pixman_fixed_t(h) << 16
        switch rotation {
        case .deg0:
            return pixman_transform_t(matrix: ((one, 0, 0), (0, one, 0), (0, 0, one)))
        case .deg90:   // logical x = panel y, logical y = h - panel x
            return pixman_transform_t(matrix: ((0, one, 0), (-one, 0, fh), (0, 0, one)))
        case .deg180:
            return pixman_transform_t(matrix: ((-one, 0, fw), (0, -one, fh), (0, 0, one)))
        case .deg270:  // logical x = w - panel y, logical y = panel x
            return pixman_transform_t(matrix: ((0, -one, fw), (one, 0, 0), (0, 0, one)))
        }
    }
}

/// A pixman image of our own over a Surface's pixels (Graphics keeps its image private,
/// and a transform set here must not leak into its drawing). Holds the surface.
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
