import CPNG
import Platform

/// PNG files through libpng's simplified API. Loaded images become premultiplied
/// argb8888 surfaces, converted once.
public struct ImageError: Error, CustomStringConvertible {
    public let path: String
    public let problem: String
    public var description: String { "\(path): \(problem)" }
}

// PNG_FORMAT_BGRA: colour | alpha | BGR order, i.e. little-endian ARGB32 in memory.
private let formatBGRA: UInt32 = 0x02 | 0x01 | 0x10
private let imageVersion: UInt32 = 1

extension Surface {
    /// The largest picture read from a file: 4096 on a side and 8 megapixels (32 MB as
    /// argb8888), checked on the header before the pixels are allocated.
    public static let maxPictureSide = 4096
    public static let maxPicturePixels = 8 * 1024 * 1024

    public static func pictureSizeProblem(width: Int, height: Int) -> String? {
        guard width > 0, height > 0 else { return "no pixels (\(width)x\(height))" }
        if width > maxPictureSide || height > maxPictureSide || width * height > maxPicturePixels {
            return "\(width)x\(height) pixels is too large (\(width * height * 4 / 1_048_576) MB); the limit is "
                + "\(maxPictureSide) on a side and \(maxPicturePixels / 1_048_576) megapixels"
        }
        return nil
    }

    /// Reads a PNG into a premultiplied argb8888 surface.
    public static func loadPNG(_ path: String) throws(ImageError) -> Surface {
        var image = png_image()
        image.version = imageVersion
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            throw ImageError(path: path, problem: pngMessage(&image, fallback: "cannot read PNG"))
        }
        image.format = formatBGRA
        if let problem = Surface.pictureSizeProblem(width: Int(image.width), height: Int(image.height)) {
            png_image_free(&image)
            throw ImageError(path: path, problem: problem)
        }
        let surface = Surface(width: Int(image.width), height: Int(image.height), format: .argb8888)
        guard png_image_finish_read(&image, nil, surface.pixels, Int32(surface.stride), nil) != 0 else {
            let message = pngMessage(&image, fallback: "corrupt PNG data")
            png_image_free(&image)
            throw ImageError(path: path, problem: message)
        }
        surface.premultiply()
        return surface
    }

    /// Writes the surface as an RGBA (argb8888) or RGB PNG.
    public func writePNG(_ path: String) throws(ImageError) {
        // libpng wants straight alpha; convert to a temporary argb8888 copy.
        let straight = copied(as: .argb8888)
        if format == .argb8888 { straight.unpremultiply() } else { straight.setOpaque() }
        var image = png_image()
        image.version = imageVersion
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = format == .argb8888 ? formatBGRA : formatBGRA
        guard png_image_write_to_file(&image, path, 0, straight.pixels, Int32(straight.stride), nil) != 0 else {
            throw ImageError(path: path, problem: pngMessage(&image, fallback: "cannot write PNG"))
        }
    }

    private func forEachARGB(_ body: (inout UInt32) -> Void) {
        precondition(format == .argb8888 || format == .xrgb8888)
        for y in 0..<height {
            let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { body(&row[x]) }
        }
    }

    func premultiply() {
        forEachARGB { v in
            let a = v >> 24
            if a == 255 { return }
            if a == 0 { v = 0; return }
            func pm(_ c: UInt32) -> UInt32 { ((c & 0xFF) * a + 127) / 255 }
            v = a << 24 | pm(v >> 16) << 16 | pm(v >> 8) << 8 | pm(v)
        }
    }

    func unpremultiply() {
        forEachARGB { v in
            let a = v >> 24
            if a == 255 || a == 0 { return }
            func un(_ c: UInt32) -> UInt32 { min(255, ((c & 0xFF) * 255 + a / 2) / a) }
            v = a << 24 | un(v >> 16) << 16 | un(v >> 8) << 8 | un(v)
        }
    }

    func setOpaque() {
        forEachARGB { v in v |= 0xFF00_0000 }
    }
}

private func pngMessage(_ image: inout png_image, fallback: String) -> String {
    let text = withUnsafeBytes(of: &image.message) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
    return text.isEmpty ? fallback : text
}
