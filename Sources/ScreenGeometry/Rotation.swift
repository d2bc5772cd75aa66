/// A whole-pixel size: a screen, a panel mode, a surface.
public struct PixelSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(_ width: Int, _ height: Int) { self.width = width; self.height = height }
    public init(width: Int, height: Int) { self.init(width, height) }
    public var description: String { "\(width)x\(height)" }
}

/// How the UI's upright logical picture is turned onto the panel, clockwise, in degrees.
/// 90 and 270 swap width and height: a 1280x800 mode becomes an 800x1280 portrait screen
/// whose top edge is the panel's right edge (90) or left edge (270).
///
/// `panelPoint(_:logicalSize:)` is the one definition of the turn. Everything else here,
/// and Display's copy-out and Input's touch mapping, is derived from it.
public enum Rotation: Int, Sendable, CaseIterable, CustomStringConvertible {
    case deg0 = 0, deg90 = 90, deg180 = 180, deg270 = 270

    /// Any multiple of 90 degrees, negative or past 360 too; nil for other angles.
    public init?(degrees: Int) {
        self.init(rawValue: ((degrees % 360) + 360) % 360)
    }

    public var description: String { "\(rawValue)" }

    /// True for 90 and 270: the panel's width is the picture's height.
    public var swapsAxes: Bool { self == .deg90 || self == .deg270 }

    /// This turn and `degrees` more, clockwise (a multiple of 90).
    public func turned(by degrees: Int) -> Rotation { Rotation(degrees: rawValue + degrees) ?? self }

    /// The turn that undoes this one.
    public var inverse: Rotation { Rotation(degrees: 360 - rawValue)! }

    /// Panel size for a logical size, and the reverse (the same swap both ways).
    public func swapped(_ size: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(size.height, size.width) : size
    }
    public func swapped(_ width: Int, _ height: Int) -> (width: Int, height: Int) {
        let s = swapped(PixelSize(width, height))
        return (s.width, s.height)
    }

    /// THE definition: where a point of the logical screen (continuous coordinates, pixel
    /// corners at whole numbers, (0, 0) the top-left corner) lands on the panel.
    /// Clockwise 90 on a w x h screen: (x, y) -> (h - y, x).
    public func panelPoint(_ p: Point, logicalSize s: PixelSize) -> Point {
        let w = Double(s.width), h = Double(s.height)
        return switch self {
        case .deg0: p
        case .deg90: Point(h - p.y, p.x)
        case .deg180: Point(w - p.x, h - p.y)
        case .deg270: Point(p.y, w - p.x)
        }
    }

    /// Where a point of the panel shows on the logical screen (touch goes this way).
    public func logicalPoint(_ p: Point, panelSize: PixelSize) -> Point {
        inverse.panelPoint(p, logicalSize: panelSize)
    }

    /// The panel pixel showing logical pixel (x, y): the one its centre lands in.
    public func panelPixel(x: Int, y: Int, logicalSize: PixelSize) -> (x: Int, y: Int) {
        Self.pixel(containing: panelPoint(Point(Double(x) + 0.5, Double(y) + 0.5), logicalSize: logicalSize))
    }

    /// The logical pixel a panel pixel shows.
    public func logicalPixel(x: Int, y: Int, panelSize: PixelSize) -> (x: Int, y: Int) {
        inverse.panelPixel(x: x, y: y, logicalSize: panelSize)
    }

    /// Where a logical rectangle lands on the panel: the box of its turned corners.
    public func panelRect(_ r: PixelRect, logicalSize: PixelSize) -> PixelRect {
        let a = panelPoint(Point(Double(r.x), Double(r.y)), logicalSize: logicalSize)
        let b = panelPoint(Point(Double(r.maxX), Double(r.maxY)), logicalSize: logicalSize)
        let x0 = Int(min(a.x, b.x)), y0 = Int(min(a.y, b.y))
        return PixelRect(x0, y0, Int(max(a.x, b.x)) - x0, Int(max(a.y, b.y)) - y0)
    }

    /// The panel read as a walk over the logical screen, for copy loops: panel pixel
    /// (px, py) shows logical pixel `origin + px * alongRow + py * acrossRows`.
    public func scan(panelSize: PixelSize) -> PixelScan {
        let o = logicalPixel(x: 0, y: 0, panelSize: panelSize)
        let right = logicalPixel(x: 1, y: 0, panelSize: panelSize)
        let down = logicalPixel(x: 0, y: 1, panelSize: panelSize)
        return PixelScan(originX: o.x, originY: o.y,
                         alongRowX: right.x - o.x, alongRowY: right.y - o.y,
                         acrossRowsX: down.x - o.x, acrossRowsY: down.y - o.y)
    }

    private static func pixel(containing p: Point) -> (x: Int, y: Int) {
        (Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
    }
}

/// Which logical pixel each panel pixel shows, as steps (each -1, 0 or 1): see
/// `Rotation.scan(panelSize:)`.
public struct PixelScan: Sendable, Equatable {
    public var originX, originY: Int
    public var alongRowX, alongRowY: Int
    public var acrossRowsX, acrossRowsY: Int

    /// The logical pixel panel pixel (px, py) shows.
    public func logicalPixel(px: Int, py: Int) -> (x: Int, y: Int) {
        (originX + px * alongRowX + py * acrossRowsX, originY + px * alongRowY + py * acrossRowsY)
    }
}
