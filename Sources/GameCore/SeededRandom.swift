/// What every game's rules share: a small deterministic random generator. The rules
/// import this and the standard library, nothing else.
///
/// SplitMix64 (Steele, Lea, Flood 2014): its whole state is one word, so a model holding
/// it stays a plain value that copies, compares and replays, and the same seed plays the
/// same game on every machine and Swift version (which the stdlib's generators don't
/// promise). Games need reproducible sequences (tests, attract mode), not cryptography.
public struct SeededRandom: RandomNumberGenerator, Equatable, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1 with 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Uniform in a closed range of doubles (an empty span gives its bound).
    public mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// Uniform in 0..<bound without modulo bias (rejection sampling).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below() needs a positive bound")
        let limit = UInt64(bound)
        let threshold = (0 &- limit) % limit  // 2^64 mod bound
        while true {
            let value = next()
            if value >= threshold { return Int(value % limit) }
        }
    }

    /// Fisher-Yates: every order equally likely.
    public mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            let j = below(i + 1)
            if i != j { items.swapAt(i, j) }
        }
    }
}
