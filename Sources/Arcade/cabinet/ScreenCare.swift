import Graphics

/// The panel's state: lit, dimmed after `display.dim_after` idle minutes, off (DPMS)
/// after `display.off_after` or outside the opening hours.
public enum PanelState: Equatable, Sendable {
    case on, dimmed, off
}

/// Burn-in care: what the panel should be after some idle time, and how far the static
/// screens (menu, attract) are shifted now: a few points around a small square, a step
/// every two minutes, so no edge stays on the same pixels for hours.
struct ScreenCare: Equatable {
    /// Seconds of no input before dimming and switching off; 0: never.
    var dimAfter: Double
    var offAfter: Double
    var pixelShift: Bool

    static let shiftInterval = 120.0
    /// Offsets in points, walked in order (each step moves 2 points).
    static let shiftPath: [Point] = [Point(0, 0), Point(2, 0), Point(2, 2), Point(0, 2), Point(-2, 2),
                                     Point(-2, 0), Point(-2, -2), Point(0, -2), Point(2, -2)]
    /// The picture's darkening when there is no backlight to dim (0: none, 1: black).
    static let pictureDim = 0.6
    /// The backlight when dimmed, as a fraction of the operator's brightness.
    static let backlightDim = 0.25

    init(settings: Settings.Display) {
        dimAfter = Double(settings.dimAfterMinutes * 60)
        offAfter = Double(settings.offAfterMinutes * 60)
        pixelShift = settings.pixelShift
    }

    func state(idle: Double) -> PanelState {
        if offAfter > 0 && idle >= offAfter { return .off }
        if dimAfter > 0 && idle >= dimAfter { return .dimmed }
        return .on
    }

    /// When, after the last input at `lastInput`, the state changes next (nil: never).
    func nextChange(lastInput: Double, now: Double) -> Double? {
        [dimAfter, offAfter].filter { $0 > 0 }.map { lastInput + $0 }.filter { $0 > now }.min()
    }

    func shift(now: Double) -> Point {
        guard pixelShift else { return .zero }
        let step = Int(max(0, now) / Self.shiftInterval)
        return Self.shiftPath[step % Self.shiftPath.count]
    }

    func nextShift(now: Double) -> Double? {
        guard pixelShift else { return nil }
        return (Double(Int(max(0, now) / Self.shiftInterval)) + 1) * Self.shiftInterval
    }
}
