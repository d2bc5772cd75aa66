#if canImport(Glibc)
import Glibc
#endif

/// A colour with straight (not premultiplied) alpha, 8 bits per channel.
public struct Color: Sendable, Equatable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }
    /// 0xRRGGBB, opaque.
    public init(hex: UInt32, alpha: UInt8 = 255) {
        self.init(r: UInt8(hex >> 16 & 0xFF), g: UInt8(hex >> 8 & 0xFF), b: UInt8(hex & 0xFF), a: alpha)
    }

    /// WCAG 2's relative luminance (sRGB), 0 for black to 1 for white.
    public var relativeLuminance: Double {
        func channel(_ v: UInt8) -> Double {
            let x = Double(v) / 255
            return x <= 0.03928 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }

    /// WCAG 2's contrast ratio with another colour: 1 (none) to 21 (black on white); text
    /// wants 4.5, large text 3.
    public func contrastRatio(with other: Color) -> Double {
        let (l1, l2) = (relativeLuminance, other.relativeLuminance)
        return (max(l1, l2) + 0.05) / (min(l1, l2) + 0.05)
    }

    public func withAlpha(_ alpha: Double) -> Color {
        Color(r: r, g: g, b: b, a: UInt8(max(0, min(255, (alpha * 255).rounded()))))
    }
    /// Multiplies the alpha, for fading a whole view.
    public func fading(_ opacity: Double) -> Color {
        Color(r: r, g: g, b: b, a: UInt8(max(0, min(255, (Double(a) * opacity).rounded()))))
    }
    /// Mixes toward another colour; t = 0 is self, 1 is other.
    public func mixed(with other: Color, _ t: Double) -> Color {
        func mix(_ p: UInt8, _ q: UInt8) -> UInt8 {
            UInt8(max(0, min(255, (Double(p) + (Double(q) - Double(p)) * t).rounded())))
        }
        return Color(r: mix(r, other.r), g: mix(g, other.g), b: mix(b, other.b), a: mix(a, other.a))
    }
    /// This colour (opaque) with `overlay` painted over it: the colour pixman's OVER makes
    /// in 8 bits (the overlay's `premultipliedARGB` plus this colour's share, rounded as
    /// pixman divides by 255), to paint at once where the overlay would always lie on this
    /// colour.
    public func overlaid(with overlay: Color) -> Color {
        let alpha = UInt32(overlay.a), over = overlay.premultipliedARGB
        func channel(_ under: UInt8, _ shift: UInt32) -> UInt8 {
            let t = UInt32(under) * (255 - alpha) + 0x80
            return UInt8(min(255, ((t >> 8) + t) >> 8 + (over >> shift & 0xFF)))
        }
        return Color(r: channel(r, 16), g: channel(g, 8), b: channel(b, 0), a: 255)
    }
    public func lighter(_ t: Double) -> Color { mixed(with: .white.withAlpha(Double(a) / 255), t) }
    public func darker(_ t: Double) -> Color { mixed(with: .black.withAlpha(Double(a) / 255), t) }

    /// Premultiplied 0xAARRGGBB, the layout of pixman's a8r8g8b8 in memory (little endian).
    public var premultipliedARGB: UInt32 {
        let alpha = UInt32(a)
        func pm(_ c: UInt8) -> UInt32 { (UInt32(c) * alpha + 127) / 255 }
        return alpha << 24 | pm(r) << 16 | pm(g) << 8 | pm(b)
    }

    public static let black = Color(hex: 0x000000)
    public static let white = Color(hex: 0xFFFFFF)
    public static let clear = Color(r: 0, g: 0, b: 0, a: 0)
}
