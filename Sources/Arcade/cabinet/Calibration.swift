/// Touch calibration in libinput's convention (LIBINPUT_CALIBRATION_MATRIX): six numbers
/// a b c d e f applied to normalized coordinates, where 0...1 spans the device's axis
/// range on input and the screen on output:
///
///     x' = a·x + b·y + c
///     y' = d·x + e·y + f
///
/// The operator taps four targets; the matrix is the affine map that best carries the
/// touched points onto the targets (least squares, so a slightly missed tap is averaged
/// out rather than trusted exactly).
public enum Calibration {
    public static let identity: [Double] = [1, 0, 0, 0, 1, 0]

    public struct Point: Equatable, Sendable {
        public var x: Double
        public var y: Double
        public init(_ x: Double, _ y: Double) {
            self.x = x
            self.y = y
        }
    }

    public struct Fit: Equatable, Sendable {
        /// a b c d e f.
        public var matrix: [Double]
        /// Largest distance from a mapped touch to its target, in normalized units
        /// (0.01 is 1% of the screen's width or height).
        public var maxError: Double
        public var rmsError: Double

        /// False when the taps disagree with each other (a target missed) or the map
        /// would shrink or stretch the screen absurdly: ask the operator to repeat.
        public var isPlausible: Bool {
            let determinant = matrix[0] * matrix[4] - matrix[1] * matrix[3]
            return maxError <= 0.04 && abs(determinant) >= 0.25 && abs(determinant) <= 4
        }
    }

    /// Where the four targets of the calibration screen go, as fractions of the screen:
    /// inset from the corners, because panels are least linear at their very edges.
    public static func targets(inset: Double = 0.1) -> [Point] {
        [Point(inset, inset), Point(1 - inset, inset), Point(1 - inset, 1 - inset), Point(inset, 1 - inset)]
    }

    /// The matrix carrying `touched` onto `targets` (both normalized, same order).
    /// Nil with fewer than three pairs, mismatched counts, or points all on one line.
    public static func solve(targets: [Point], touched: [Point]) -> Fit? {
        guard targets.count == touched.count, targets.count >= 3 else { return nil }
        guard touched.allSatisfy({ $0.x.isFinite && $0.y.isFinite }),
              targets.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        // Normal equations MᵀM p = Mᵀt with rows (x, y, 1); shared by both outputs.
        var normal = [[Double]](repeating: [0, 0, 0], count: 3)
        var rightX: [Double] = [0, 0, 0]
        var rightY: [Double] = [0, 0, 0]
        for (touch, target) in zip(touched, targets) {
            let row = [touch.x, touch.y, 1]
            for i in 0..<3 {
                for j in 0..<3 { normal[i][j] += row[i] * row[j] }
                rightX[i] += row[i] * target.x
                rightY[i] += row[i] * target.y
            }
        }
        guard let abc = solve3(normal, rightX), let def = solve3(normal, rightY) else { return nil }
        let matrix = abc + def
        var worst = 0.0
        var sumSquares = 0.0
        for (touch, target) in zip(touched, targets) {
            let mapped = apply(matrix, to: touch)
            let dx = mapped.x - target.x, dy = mapped.y - target.y
            let squared = dx * dx + dy * dy
            worst = max(worst, squared.squareRoot())
            sumSquares += squared
        }
        return Fit(matrix: matrix, maxError: worst, rmsError: (sumSquares / Double(targets.count)).squareRoot())
    }

    public static func apply(_ matrix: [Double], to point: Point) -> Point {
        Point(matrix[0] * point.x + matrix[1] * point.y + matrix[2],
              matrix[3] * point.x + matrix[4] * point.y + matrix[5])
    }

    /// `outer` after `inner`: the single matrix doing both. When the touches were read
    /// through the current calibration, the new setting is compose(fit, current).
    public static func compose(_ outer: [Double], _ inner: [Double]) -> [Double] {
        let (a, b, c, d, e, f) = (outer[0], outer[1], outer[2], outer[3], outer[4], outer[5])
        let (p, q, r, s, t, u) = (inner[0], inner[1], inner[2], inner[3], inner[4], inner[5])
        return [a * p + b * s, a * q + b * t, a * r + b * u + c,
                d * p + e * s, d * q + e * t, d * r + e * u + f]
    }

    /// The inverse map; nil for a singular matrix.
    public static func inverse(_ m: [Double]) -> [Double]? {
        let determinant = m[0] * m[4] - m[1] * m[3]
        guard abs(determinant) > 1e-12 else { return nil }
        let a = m[4] / determinant, b = -m[1] / determinant
        let d = -m[3] / determinant, e = m[0] / determinant
        return [a, b, -(a * m[2] + b * m[5]), d, e, -(d * m[2] + e * m[5])]
    }

    /// A 3×3 system by Gaussian elimination with partial pivoting; nil when singular.
    private static func solve3(_ matrix: [[Double]], _ right: [Double]) -> [Double]? {
        var rows = (0..<3).map { matrix[$0] + [right[$0]] }
        let scale = matrix.flatMap { $0 }.map(abs).max() ?? 0
        guard scale > 0 else { return nil }
        for column in 0..<3 {
            let pivot = (column..<3).max { abs(rows[$0][column]) < abs(rows[$1][column]) }!
            guard abs(rows[pivot][column]) > scale * 1e-10 else { return nil }
            rows.swapAt(column, pivot)
            for row in 0..<3 where row != column {
                let factor = rows[row][column] / rows[column][column]
                for k in column..<4 { rows[row][k] -= factor * rows[column][k] }
            }
        }
        return (0..<3).map { rows[$0][3] / rows[$0][$0] }
    }
}
