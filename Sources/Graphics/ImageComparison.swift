import Platform

/// Compares two pictures pixel by pixel, for reference-image tests and for checking a
/// real screen against the headless render of the same scene.
public struct ImageComparison {
    public let differingPixels: Int
    public let maxChannelDifference: Int
    /// Red where the pictures differ by more than the tolerance, a faint copy elsewhere.
    public let diff: Surface?

    /// `tolerance`: how far one channel may be off before the pixel counts as different.
    public init(_ a: Surface, _ b: Surface, tolerance: Int = 0) {
        guard a.width == b.width, a.height == b.height else {
            differingPixels = max(a.width * a.height, b.width * b.height)
            maxChannelDifference = 255
            diff = nil
            return
        }
        let out = Surface(width: a.width, height: a.height, format: .xrgb8888)
        var count = 0
        var worst = 0
        for y in 0..<a.height {
            let row = (out.pixels + y * out.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)),
                            abs(Int(p.b) - Int(q.b)), abs(Int(p.a) - Int(q.a)))
                worst = max(worst, d)
                if d > tolerance {
                    count += 1
                    row[x] = 0xFF0000
                } else {
                    let grey = UInt32(200 + (Int(p.r) + Int(p.g) + Int(p.b)) / 3 / 5)
                    row[x] = grey << 16 | grey << 8 | grey
                }
            }
        }
        differingPixels = count
        maxChannelDifference = worst
        diff = out
    }
}

/// Reference images kept in the repository: compare, and on a mismatch write the actual
/// picture and a diff next to a failure report. Set BOARDWALK_RECORD=1 to (re)write
/// references after looking at them.
public enum ReferenceImages {
    public struct Mismatch: Error, CustomStringConvertible {
        public let description: String
    }

    /// Returns nil when `actual` matches the reference at `path` within the tolerance.
    public static func check(_ actual: Surface, reference path: String, tolerance: Int = 8,
                             allowedFraction: Double = 0.002, failureDirectory: String) -> Mismatch? {
        let record = getenvString("BOARDWALK_RECORD") == "1"
        if record || !Files.exists(path) {
            if !record {
                return Mismatch(description: "no reference image at \(path); run with BOARDWALK_RECORD=1 to create it")
            }
            do {
                try Files.makeDirectories(Files.directoryName(path))
                try actual.writePNG(path)
            } catch {
                return Mismatch(description: "cannot write reference \(path): \(error)")
            }
            return nil
        }
        let expected: Surface
        do { expected = try Surface.loadPNG(path) } catch {
            return Mismatch(description: "cannot read reference: \(error)")
        }
        let comparison = ImageComparison(actual.copied(as: .argb8888), expected, tolerance: tolerance)
        let allowed = Int(Double(actual.width * actual.height) * allowedFraction)
        if comparison.differingPixels <= allowed { return nil }
        let name = String(path.split(separator: "/").last ?? "image").replacingSuffix(".png", with: "")
        try? Files.makeDirectories(failureDirectory)
        let actualPath = "\(failureDirectory)/\(name).actual.png"
        let diffPath = "\(failureDirectory)/\(name).diff.png"
        try? actual.writePNG(actualPath)
        try? comparison.diff?.writePNG(diffPath)
        return Mismatch(description: "\(path): \(comparison.differingPixels) pixels differ by more than \(tolerance) (max \(comparison.maxChannelDifference)); actual: \(actualPath), diff: \(diffPath)")
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with other: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + other : self
    }
}

#if canImport(Glibc)
import Glibc
#endif

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
