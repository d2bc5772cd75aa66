/// Logical-point geometry (Double) for layout and touch, and pixel rectangles (Int) for
/// damage and copy-out. Graphics re-exports this module, so drawing code sees it as its own.

public struct Point: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(0, 0)

    public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }
    public func distance(to other: Point) -> Double {
        let dx = x - other.x, dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }
}

public struct Size: Sendable, Equatable, Hashable {
    public var width: Double
    public var height: Double
    public init(_ width: Double, _ height: Double) { self.width = width; self.height = height }
    public init(width: Double, height: Double) { self.width = width; self.height = height }
    public static let zero = Size(0, 0)
}

public struct Rect: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(x, y, width, height)
    }
    public init(origin: Point, size: Size) {
        self.init(origin.x, origin.y, size.width, size.height)
    }
    public init(center: Point, size: Size) {
        self.init(center.x - size.width / 2, center.y - size.height / 2, size.width, size.height)
    }
    public static let zero = Rect(0, 0, 0, 0)

    public var origin: Point { Point(x, y) }
    public var size: Size { Size(width, height) }
    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }
    public var center: Point { Point(midX, midY) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func contains(_ p: Point) -> Bool {
        p.x >= x && p.x < maxX && p.y >= y && p.y < maxY
    }
    public func insetBy(_ dx: Double, _ dy: Double) -> Rect {
        Rect(x + dx, y + dy, width - 2 * dx, height - 2 * dy)
    }
    public func offsetBy(_ dx: Double, _ dy: Double) -> Rect {
        Rect(x + dx, y + dy, width, height)
    }
    public func intersection(_ o: Rect) -> Rect {
        let x0 = max(x, o.x), y0 = max(y, o.y)
        let x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        return x1 > x0 && y1 > y0 ? Rect(x0, y0, x1 - x0, y1 - y0) : .zero
    }
    public func union(_ o: Rect) -> Rect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return Rect(x0, y0, max(maxX, o.maxX) - x0, max(maxY, o.maxY) - y0)
    }
    public func intersects(_ o: Rect) -> Bool { !intersection(o).isEmpty }
    /// The smallest pixel rectangle covering this one.
    public var enclosingPixels: PixelRect {
        let x0 = Int((x).rounded(.down)), y0 = Int((y).rounded(.down))
        let x1 = Int((maxX).rounded(.up)), y1 = Int((maxY).rounded(.up))
        return PixelRect(x0, y0, max(0, x1 - x0), max(0, y1 - y0))
    }
}

/// A rectangle of whole pixels: damage, clips, copy-out regions.
public struct PixelRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(_ x: Int, _ y: Int, _ width: Int, _ height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public init(x: Int, y: Int, width: Int, height: Int) { self.init(x, y, width, height) }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var area: Int { isEmpty ? 0 : width * height }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    public func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x), y0 = max(y, o.y)
        let x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        return x1 > x0 && y1 > y0 ? PixelRect(x0, y0, x1 - x0, y1 - y0) : PixelRect(0, 0, 0, 0)
    }
    public func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return PixelRect(x0, y0, max(maxX, o.maxX) - x0, max(maxY, o.maxY) - y0)
    }
    public func intersects(_ o: PixelRect) -> Bool { !intersection(o).isEmpty }
    /// This rect less `hole`: up to four rects, the rows above and below the hole whole,
    /// the columns beside it in the hole's rows.
    public func subtracting(_ hole: PixelRect?) -> [PixelRect] {
        guard let hole, intersects(hole) else { return isEmpty ? [] : [self] }
        let h = intersection(hole)
        return [PixelRect(x, y, width, h.y - y), PixelRect(x, h.maxY, width, maxY - h.maxY),
                PixelRect(x, h.y, h.x - x, h.height), PixelRect(h.maxX, h.y, maxX - h.maxX, h.height)]
            .filter { !$0.isEmpty }
    }

    public func contains(_ o: PixelRect) -> Bool {
        o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY
    }
}

/// A set of damaged pixel rectangles. Kept short: overlapping or near rectangles are
/// merged, and past a limit everything collapses to the bounding box (cheaper to draw
/// one larger area than to walk many small ones).
public struct DamageRegion: Sendable, Equatable {
    public private(set) var rects: [PixelRect] = []
    public static let maxRects = 16

    public init() {}
    public init(_ rect: PixelRect) { add(rect) }

    public var isEmpty: Bool { rects.isEmpty }
    public var area: Int { rects.reduce(0) { $0 + $1.area } }
    public var bounds: PixelRect { rects.reduce(PixelRect(0, 0, 0, 0)) { $0.union($1) } }

    public mutating func add(_ rect: PixelRect) {
        guard !rect.isEmpty else { return }
        var merged = rect
        // Absorb every rectangle that overlaps the new one, or whose union wastes little.
        var changed = true
        while changed {
            changed = false
            for (i, r) in rects.enumerated() {
                let u = merged.union(r)
                if r.intersects(merged) || u.area <= merged.area + r.area + u.area / 8 {
                    merged = u
                    rects.remove(at: i)
                    changed = true
                    break
                }
            }
        }
        rects.append(merged)
        if rects.count > DamageRegion.maxRects {
            rects = [bounds]
        }
    }

    public mutating func add(_ other: DamageRegion) {
        for r in other.rects { add(r) }
    }

    public mutating func clip(to bounds: PixelRect) {
        rects = rects.map { $0.intersection(bounds) }.filter { !$0.isEmpty }
    }

    public mutating func removeAll() { rects.removeAll() }
}
