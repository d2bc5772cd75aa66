/// SHA-256 (FIPS 180-4), HMAC-SHA-256 (RFC 2104) and PBKDF2-HMAC-SHA-256 (RFC 8018), for
/// the operator PIN's salted hash. Small and plain: no Foundation, no outside package.
public struct SHA256: Sendable {
    public static let digestSize = 32
    static let blockSize = 64

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    private static let initial: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    private var state = SHA256.initial
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    public init() {
        buffer.reserveCapacity(SHA256.blockSize)
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            buffer.append(byte)
            length &+= 1
            if buffer.count == SHA256.blockSize {
                SHA256.compress(&state, buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    public mutating func finish() -> [UInt8] {
        let bits = length &* 8
        buffer.append(0x80)
        if buffer.count > SHA256.blockSize - 8 {
            buffer += [UInt8](repeating: 0, count: SHA256.blockSize - buffer.count)
            SHA256.compress(&state, buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        buffer += [UInt8](repeating: 0, count: SHA256.blockSize - 8 - buffer.count)
        for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        SHA256.compress(&state, buffer)
        buffer.removeAll(keepingCapacity: true)
        var digest: [UInt8] = []
        digest.reserveCapacity(SHA256.digestSize)
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finish()
    }

    private static func compress(_ state: inout [UInt32], _ block: [UInt8]) {
        var w = [UInt32](repeating: 0, count: 64)
        for i in 0..<16 {
            w[i] = UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16
                | UInt32(block[4 * i + 2]) << 8 | UInt32(block[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for i in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            h = g; g = f; f = e; e = d &+ t1
            d = c; c = b; b = a; a = t1 &+ t2
        }
        state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
        state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
    }

    @inline(__always)
    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
}

/// HMAC-SHA-256 with the key's padded blocks hashed once, so PBKDF2's many rounds each
/// cost two compressions of new data, not four.
public struct HMACSHA256: Sendable {
    private var inner = SHA256()
    private var outer = SHA256()

    public init(key: [UInt8]) {
        var block = key.count > SHA256.blockSize ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockSize - block.count)
        inner.update(block.map { $0 ^ 0x36 })
        outer.update(block.map { $0 ^ 0x5c })
    }

    public func authenticate(_ message: some Sequence<UInt8>) -> [UInt8] {
        var i = inner
        i.update(message)
        var o = outer
        o.update(i.finish())
        return o.finish()
    }

    public static func authenticate(_ message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        HMACSHA256(key: key).authenticate(message)
    }
}

/// PBKDF2 (RFC 8018) with HMAC-SHA-256: `length` bytes of key from a password and salt.
public func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int = SHA256.digestSize) -> [UInt8] {
    let mac = HMACSHA256(key: password)
    var output: [UInt8] = []
    var blockIndex: UInt32 = 1
    while output.count < length {
        var u = mac.authenticate(salt + [UInt8(blockIndex >> 24), UInt8(truncatingIfNeeded: blockIndex >> 16),
                                         UInt8(truncatingIfNeeded: blockIndex >> 8), UInt8(truncatingIfNeeded: blockIndex)])
        var t = u
        if iterations > 1 {
            for _ in 1..<iterations {
                u = mac.authenticate(u)
                for j in 0..<t.count { t[j] ^= u[j] }
            }
        }
        output += t
        blockIndex &+= 1
    }
    return Array(output.prefix(length))
}
