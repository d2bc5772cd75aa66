import CPixman
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public enum PixelFormat: String, Sendable, Equatable, CaseIterable {
    /// 32-bit, alpha byte ignored: the usual scan-out format.
    case xrgb8888
    /// 32-bit premultiplied alpha: images, sprites, glyphs.
    case argb8888
    /// 16-bit 5-6-5: small SPI panels.
    case rgb565
    /// 8-bit coverage: masks.
    case a8

    public var bytesPerPixel: Int {
        switch self {
        case .xrgb8888, .argb8888: 4
        case .rgb565: 2
        case .a8: 1
        }
    }

    var pixmanFormat: pixman_format_code_t {
        switch self {
        case .xrgb8888: PIXMAN_x8r8g8b8
        case .argb8888: PIXMAN_a8r8g8b8
        case .rgb565: PIXMAN_r5g6b5
        case .a8: PIXMAN_a8
        }
    }
}

/// A block of pixels in memory with the pixman image that draws into it. The surface
/// owns both; either it allocated the pixels or it wraps memory whose owner outlives it.
public final class Surface {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    /// Bytes per row.
    public let stride: Int
    public let pixels: UnsafeMutableRawPointer
    let image: OpaquePointer
    /// Which surface this is, never given to another (an object's address is, once it is
    /// freed): caches that must not hold a surface remember it by this.
    let serial = Surface.made.add(1, ordering: .relaxed).newValue
    private let ownsPixels: Bool
    private let isMapped: Bool
    /// Surfaces of this many bytes and more own an mmap of their own (a 128x128 picture).
    static let mappedThreshold = 64 << 10

    /// Allocates a cleared surface.
    public convenience init(width: Int, height: Int, format: PixelFormat) {
        self.init(width: width, height: height, format: format, mapped: false)
    }

    /// A surface for a cache (`KeptSurfaces`): its own mapping from a page up. Kept
    /// surfaces go when the budget needs room, at any moment, and in the heap each one
    /// left a hole among longer-lived blocks (the 24 h soak's heap doubled, a third of it
    /// free); smaller ones share pages in the heap, where their sizes recur.
    static func kept(width: Int, height: Int, format: PixelFormat) -> Surface {
        let bytes = ((width * format.bytesPerPixel + 15) & ~15) * height
        return Surface(width: width, height: height, format: format, mapped: bytes >= 4096)
    }

    /// `mapped`: its own mapping whatever its size, for buffers a cache makes and drops
    /// often (shadow masks), so their memory goes back to the kernel instead of holes.
    init(width: Int, height: Int, format: PixelFormat, mapped: Bool) {
        precondition(width > 0 && height > 0, "surface of \(width)x\(height)")
        self.width = width
        self.height = height
        self.format = format
        // Rows padded to 16 bytes so pixman's SIMD paths stay aligned.
        self.stride = (width * format.bytesPerPixel + 15) & ~15
        let bytes = stride * height
        // Big buffers (pictures, frames) get their own mapping, given back to the kernel
        // when the surface goes: in the heap, a freed picture leaves a hole that stays
        // resident (the soak saw RSS held at the emoji cache's high-water mark). Pages of
        // a fresh mapping read as zero.
        if bytes >= Surface.mappedThreshold || mapped,
           let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
           mapped != UnsafeMutableRawPointer(bitPattern: -1) {
            self.pixels = mapped
            self.isMapped = true
        } else {
            self.pixels = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            self.pixels.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            self.isMapped = false
        }
        self.ownsPixels = true
        self.image = pixman_image_create_bits(
            format.pixmanFormat, Int32(width), Int32(height),
            pixels.assumingMemoryBound(to: UInt32.self), Int32(stride))!
        Surface.liveCount.add(1, ordering: .relaxed)
        Surface.liveBytes.add(stride * height, ordering: .relaxed)
    }

    /// Wraps pixels someone else owns (a mapped scan-out buffer, a decoded image).
    public init(wrapping pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int,
                format: PixelFormat) {
        self.width = width
        self.height = height
        self.format = format
        self.stride = stride
        self.pixels = pixels
        self.ownsPixels = false
        self.isMapped = false
        self.image = pixman_image_create_bits(
            format.pixmanFormat, Int32(width), Int32(height),
            pixels.assumingMemoryBound(to: UInt32.self), Int32(stride))!
    }

    deinit {
        pixman_image_unref(image)
        if ownsPixels {
            if isMapped { munmap(pixels, stride * height) } else { pixels.deallocate() }
            Surface.liveCount.subtract(1, ordering: .relaxed)
            Surface.liveBytes.subtract(stride * height, ordering: .relaxed)
        }
    }

    private static let made = Atomic<Int>(0)

    // The soak's memory report: how many pixel buffers are alive and how big, so growth
    // can be told apart from caches, scenes and the allocator. Atomic: tests draw from
    // several threads; relaxed is enough for a census.
    private static let liveCount = Atomic<Int>(0)
    private static let liveBytes = Atomic<Int>(0)

    /// Surfaces that own their pixels, alive now: how many and their pixel bytes.
    public static var census: (count: Int, bytes: Int) {
        (liveCount.load(ordering: .relaxed), liveBytes.load(ordering: .relaxed))
    }

    public var bounds: PixelRect { PixelRect(0, 0, width, height) }
    /// The pixman image over these pixels, for code that composites with pixman directly.
    public var pixmanImage: OpaquePointer { image }
    public var byteCount: Int { stride * height }

    /// One pixel as straight-alpha Color (for tests and screenshots; slow).
    public func pixel(x: Int, y: Int) -> Color {
        let row = pixels + y * stride
        switch format {
        case .xrgb8888:
            let v = row.load(fromByteOffset: x * 4, as: UInt32.self)
            return Color(hex: v & 0xFFFFFF)
        case .argb8888:
            let v = row.load(fromByteOffset: x * 4, as: UInt32.self)
            let a = UInt8(v >> 24)
            if a == 0 { return .clear }
            func un(_ c: UInt32) -> UInt8 { UInt8(min(255, (c & 0xFF) * 255 / UInt32(a))) }
            return Color(r: un(v >> 16), g: un(v >> 8), b: un(v), a: a)
        case .rgb565:
            let v = UInt32(row.load(fromByteOffset: x * 2, as: UInt16.self))
            let r = (v >> 11) & 0x1F, g = (v >> 5) & 0x3F, b = v & 0x1F
            return Color(r: UInt8(r << 3 | r >> 2), g: UInt8(g << 2 | g >> 4), b: UInt8(b << 3 | b >> 2))
        case .a8:
            return Color(r: 0, g: 0, b: 0, a: row.load(fromByteOffset: x, as: UInt8.self))
        }
    }

    /// Fills a pixel rectangle with a colour, replacing what is there (no blending).
    public func clear(_ rect: PixelRect? = nil, to color: Color = .clear) {
        let r = (rect ?? bounds).intersection(bounds)
        guard !r.isEmpty else { return }
        var c = color.pixmanColor
        var box = pixman_box32_t(x1: Int32(r.x), y1: Int32(r.y), x2: Int32(r.maxX), y2: Int32(r.maxY))
        pixman_image_fill_boxes(PIXMAN_OP_SRC, image, &c, 1, &box)
    }

    /// Copies a region of another surface here at the same position, converting format.
    public func copy(from source: Surface, rect: PixelRect) {
        let r = rect.intersection(bounds).intersection(source.bounds)
        guard !r.isEmpty else { return }
        pixman_image_composite32(PIXMAN_OP_SRC, source.image, nil, image,
                                 Int32(r.x), Int32(r.y), 0, 0, Int32(r.x), Int32(r.y),
                                 Int32(r.width), Int32(r.height))
    }

    /// A new surface holding a copy of this one (converted to the given format).
    public func copied(as format: PixelFormat? = nil) -> Surface {
        let out = Surface(width: width, height: height, format: format ?? self.format)
        out.copy(from: self, rect: bounds)
        return out
    }
}

extension Color {
    /// pixman's 16-bit-per-channel premultiplied colour.
    public var pixmanColor: pixman_color_t {
        let alpha = UInt32(a)
        func pm(_ c: UInt8) -> UInt16 { UInt16((UInt32(c) * alpha + 127) / 255 * 257) }
        return pixman_color_t(red: pm(r), green: pm(g), blue: pm(b), alpha: UInt16(alpha * 257))
    }
}
