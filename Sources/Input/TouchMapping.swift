import ScreenGeometry

/// A 2x3 affine matrix in libinput's LIBINPUT_CALIBRATION_MATRIX convention: it maps the
/// touch position normalized to 0...1 on the panel to a corrected normalized position,
/// x' = a*x + b*y + c, y' = d*x + e*y + f. Identity is "1 0 0 0 1 0".
public struct CalibrationMatrix: Sendable, Equatable {
    public var a, b, c, d, e, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        self.a = a; self.b = b; self.c = c
        self.d = d; self.e = e; self.f = f
    }

    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)

    /// Six numbers separated by commas and/or spaces, as udev and board profiles write them.
    public init?(parsing text: String) {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
        guard parts.count == 6 else { return nil }
        var values: [Double] = []
        for part in parts {
            guard let value = Double(part), value.isFinite else { return nil }
            values.append(value)
        }
        self.init(values[0], values[1], values[2], values[3], values[4], values[5])
    }

    public var values: [Double] { [a, b, c, d, e, f] }

    public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }
}

/// Everything about the screen and the panel's mounting that turns a normalized touch
/// position into screen pixels. Shared by every touch device of the kiosk.
public struct TouchTransform: Sendable, Equatable {
    /// The scan-out mode in pixels, before rotation (what the DRM connector reports).
    public var displayWidth: Int
    public var displayHeight: Int
    /// The turn Display's copy-out applies; touches are turned back by the same definition.
    public var rotation: Rotation
    public var calibration: CalibrationMatrix
    /// Panel wiring fixes, applied before the calibration matrix: swap X and Y, then invert.
    public var swapAxes: Bool
    public var invertX: Bool
    public var invertY: Bool

    public init(displayWidth: Int, displayHeight: Int, rotation: Rotation = .deg0,
                calibration: CalibrationMatrix = .identity,
                swapAxes: Bool = false, invertX: Bool = false, invertY: Bool = false) {
        self.displayWidth = max(1, displayWidth)
        self.displayHeight = max(1, displayHeight)
        self.rotation = rotation
        self.calibration = calibration
        self.swapAxes = swapAxes
        self.invertX = invertX
        self.invertY = invertY
    }

    /// The logical screen the UI lays out on and touch events are reported in.
    public var screenWidth: Int { rotation.swapped(panelSize).width }
    public var screenHeight: Int { rotation.swapped(panelSize).height }
    private var panelSize: PixelSize { PixelSize(displayWidth, displayHeight) }

    /// Normalized panel position (0...1 each) -> logical screen pixels. The result is
    /// clamped to the centres of the edge pixels, so it always hit-tests inside the screen.
    public func screenPoint(normalizedX nx: Double, normalizedY ny: Double) -> (x: Double, y: Double) {
        var u = nx, v = ny
        if swapAxes { swap(&u, &v) }
        if invertX { u = 1 - u }
        if invertY { v = 1 - v }
        (u, v) = calibration.apply(u, v)
        // The picture is turned clockwise onto the panel, so the touch is turned back.
        let panel = Point(u * Double(displayWidth), v * Double(displayHeight))
        let logical = rotation.logicalPoint(panel, panelSize: panelSize)
        let width = Double(screenWidth), height = Double(screenHeight)
        return (Self.clamp(logical.x, width), Self.clamp(logical.y, height))
    }

    private static func clamp(_ value: Double, _ size: Double) -> Double {
        guard value.isFinite else { return size / 2 }
        return min(max(value, 0.5), size - 0.5)
    }
}

/// One device's axis ranges plus the shared screen transform: raw axis values -> pixels.
public struct TouchMapping: Sendable, Equatable {
    public var x: AxisRange
    public var y: AxisRange
    public var transform: TouchTransform

    public init(x: AxisRange, y: AxisRange, transform: TouchTransform) {
        self.x = x
        self.y = y
        self.transform = transform
    }

    public func map(rawX: Int32, rawY: Int32) -> (x: Double, y: Double) {
        transform.screenPoint(normalizedX: x.normalized(rawX), normalizedY: y.normalized(rawY))
    }
}
