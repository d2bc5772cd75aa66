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
