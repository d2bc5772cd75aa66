import Graphics
import Platform

/// Compares two pictures pixel by pixel, for reference-image tests and for checking one
/// drawing path against another.
public struct ImageComparison {
    public let differingPixels: Int
    public let maxChannelDifference: Int
    /// The most differing pixels inside any one `patchSize` x `patchSize` square (squares
    /// every half patch): a changed glyph is a dense patch even when it is a tiny share
    /// of the screen, where scattered rounding is not.
    public let densestPatch: Int
    /// Red where the pictures differ by more than the tolerance, a faint copy elsewhere.
    public let diff: Surface?

    /// 16 points at scale 1: a digit of body text fits in one.
    public static let patchSize = 16

    /// `tolerance`: how far one channel may be off before the pixel counts as different.
    public init(_ a: Surface, _ b: Surface, tolerance: Int = 0) {
        guard a.width == b.width, a.height == b.height else {
            differingPixels = max(a.width * a.height, b.width * b.height)
            maxChannelDifference = 255
            densestPatch = Self.patchSize * Self.patchSize
            diff = nil
            return
        }
        let out = Surface(width: a.width, height: a.height, format: .xrgb8888)
        // Differing pixels per half-patch cell; a patch is 2x2 cells.
        let cell = Self.patchSize / 2
        let columns = (a.width + cell - 1) / cell, rows = (a.height + cell - 1) / cell
        var cells = [Int](repeating: 0, count: columns * rows)
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
                    cells[(y / cell) * columns + x / cell] += 1
                    row[x] = 0xFF0000
                } else {
                    let grey = UInt32(200 + (Int(p.r) + Int(p.g) + Int(p.b)) / 3 / 5)
                    row[x] = grey << 16 | grey << 8 | grey
                }
            }
        }
        var densest = 0
        for cy in 0..<rows {
            for cx in 0..<columns {
                var sum = 0
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] where cx + dx < columns && cy + dy < rows {
                    sum += cells[(cy + dy) * columns + cx + dx]
                }
                densest = max(densest, sum)
            }
        }
        differingPixels = count
        maxChannelDifference = worst
        densestPatch = densest
        diff = out
    }
}
