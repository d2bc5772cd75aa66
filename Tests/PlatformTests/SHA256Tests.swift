import XCTest
@testable import Platform

/// Known answers: FIPS 180-4's examples (NIST's "abc", the 448- and 896-bit messages, a
/// million 'a'), the padding edges at 55/56/64 bytes, RFC 4231's HMAC cases 1 and 6 and
/// RFC 7914's PBKDF2-HMAC-SHA-256 vector; the others were computed with Python's hashlib.
final class SHA256Tests: XCTestCase {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }

    func testFIPS180Vectors() {
        XCTAssertEqual(hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex(SHA256.hash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hex(SHA256.hash(Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                                             + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8))),
                       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        // A million 'a', fed in uneven pieces.
        var h = SHA256()
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let n = min(piece, left)
            h.update([UInt8](repeating: UInt8(ascii: "a"), count: n))
            left -= n
            piece = piece * 3 % 1001 + 1
        }
        XCTAssertEqual(hex(h.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testPaddingEdges() {
        let a = UInt8(ascii: "a")
        XCTAssertEqual(hex(SHA256.hash([UInt8](repeating: a, count: 55))), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        XCTAssertEqual(hex(SHA256.hash([UInt8](repeating: a, count: 56))), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        XCTAssertEqual(hex(SHA256.hash([UInt8](repeating: a, count: 64))), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }

    func testHMAC() {
        XCTAssertEqual(hex(HMACSHA256.authenticate(Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(hex(HMACSHA256.authenticate(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                                                   key: [UInt8](repeating: 0xaa, count: 131))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    func testPBKDF2() {
        XCTAssertEqual(hex(pbkdf2SHA256(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)),
                       "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                       + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        let salt: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]
        XCTAssertEqual(hex(pbkdf2SHA256(password: Array("123456".utf8), salt: salt, iterations: 1000)),
                       "5f96a43ec085d7e812c2d0fc4b797107078dce886b2ddcb376e63c5b07cdbac0")
    }
}
