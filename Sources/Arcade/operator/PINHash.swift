#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The operator PIN as it is stored: never the digits, a salted PBKDF2-HMAC-SHA-256 hash,
/// written `pbkdf2-sha256$ITERATIONS$SALT_HEX$HASH_HEX` (`images/lib.sh` bw_set_pin makes
/// it at image build or `make install`).
///
/// What the iterations buy: each guess costs ITERATIONS x 2 SHA-256 compressions, so with
/// 100,000 trying all 10,000 four-digit PINs takes a CPU core about ten minutes and all
/// million six-digit PINs some hours (a GPU: far less). A stolen hash of a short PIN is
/// slowed down, not safe: keep the file unreadable to others (0640 root:boardwalk), and
/// rely on the kiosk's lockout against guessing at the screen.
public struct PINHash: Equatable, Sendable, CustomStringConvertible {
    public static let scheme = "pbkdf2-sha256"
    public static let defaultIterations = 100_000
    /// Refuses work factors that would stall the kiosk for minutes on a guess.
    public static let maximumIterations = 10_000_000

    public let iterations: Int
    public let salt: [UInt8]
    public let hash: [UInt8]

    public init(pin: String, salt: [UInt8], iterations: Int = PINHash.defaultIterations) {
        self.iterations = iterations
        self.salt = salt
        hash = pbkdf2SHA256(password: Array(pin.utf8), salt: salt, iterations: iterations)
    }

    /// Reads the stored form; nil when it is not one.
    public init?(parsing text: String) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == PINHash.scheme,
              let iterations = Int(parts[1]), (1...PINHash.maximumIterations).contains(iterations),
              let salt = PINHash.bytes(hex: parts[2]), salt.count >= 8,
              let hash = PINHash.bytes(hex: parts[3]), hash.count == SHA256.digestSize else { return nil }
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    public var encoded: String {
        "\(PINHash.scheme)$\(iterations)$\(PINHash.hex(salt))$\(PINHash.hex(hash))"
    }

    /// Never the hash itself in a log line (it would let anyone with the journal guess
    /// offline).
    public var description: String { "a salted hash (\(iterations) iterations)" }

    /// Whether `pin` is the PIN; every byte of the hashes is compared whatever the first
    /// difference, so timing tells nothing.
    public func matches(_ pin: String) -> Bool {
        let candidate = pbkdf2SHA256(password: Array(pin.utf8), salt: salt, iterations: iterations)
        var difference: UInt8 = candidate.count == hash.count ? 0 : 1
        for (a, b) in zip(candidate, hash) { difference |= a ^ b }
        return difference == 0
    }

    /// PINs a passer-by tries first: 1234, 0000 and the like.
    public static func isWeak(_ pin: String) -> Bool {
        let digits = Array(pin.utf8)
        guard digits.count >= 4 else { return true }
        if Set(digits).count == 1 { return true }
        let ascending = zip(digits, digits.dropFirst()).allSatisfy { $1 == $0 &+ 1 }
        let descending = zip(digits, digits.dropFirst()).allSatisfy { $0 == $1 &+ 1 }
        return ascending || descending
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(hex: Substring) -> [UInt8]? {
        let chars = Array(hex.utf8)
        guard !chars.isEmpty, chars.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            guard let hi = value(chars[i]), let lo = value(chars[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
