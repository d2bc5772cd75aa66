/// An absolute axis as the device declares it (`struct input_absinfo` / evemu `A:` line).
public struct AxisInfo: Sendable, Equatable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    public var resolution: Int32
    /// The current value when known (libevdev); 0 for recordings.
    public var value: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0,
                resolution: Int32 = 0, value: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
        self.value = value
    }

    public var range: AxisRange { AxisRange(minimum: minimum, maximum: maximum) }
}

/// The span of raw values one touch axis reports.
public struct AxisRange: Sendable, Equatable {
    public var minimum: Int32
    public var maximum: Int32

    public init(minimum: Int32, maximum: Int32) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// Where `value` lies in 0...1. The range holds max-min+1 discrete positions and each is
    /// taken at its centre, so 0..799 on an 800-pixel axis lands on pixel centres exactly,
    /// 0..800 (max == width) stays on screen, and a flipped or rotated axis stays symmetric.
    public func normalized(_ value: Int32) -> Double {
        let span = Double(maximum) - Double(minimum) + 1
        guard span > 1 else { return 0.5 }
        return (Double(value) - Double(minimum) + 0.5) / span
    }
}
