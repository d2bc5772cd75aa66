import TestSupport
import XCTest
@testable import Arcade

final class SystemVersionTests: XCTestCase {
    func testReadsTheImageAndTheSlot() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/os-release", """
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            # the image recipe's lines
            IMAGE_ID=boardwalk-qemu-x86_64
            IMAGE_VERSION="2026.12.1 \\"second\\""
            BROKEN LINE
            """)
        try writeFile(dir + "/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda2 rauc.slot=A quiet rauc.slot=B\n")
        try writeFile(dir + "/version", "0.9\n")
        let v = SystemVersion.read(osRelease: [dir + "/missing", dir + "/os-release"], cmdline: [dir + "/cmdline"],
                                   packageVersion: [dir + "/version"])
        XCTAssertEqual(v, SystemVersion(version: "2026.12.1 \"second\"", imageID: "boardwalk-qemu-x86_64", slot: "B"))
        XCTAssertEqual(v.summary, "version 2026.12.1 \"second\" (image boardwalk-qemu-x86_64), slot B")
        XCTAssertEqual(SystemVersion.parseOSRelease("A='single quoted'\nB=plain\n"), ["A": "single quoted", "B": "plain"])
    }

    func testMissingIsUnknownNeverACrash() throws {
        let dir = try makeTemporaryDirectory(self)
        XCTAssertEqual(SystemVersion.read(osRelease: [dir + "/none"], cmdline: [dir + "/none"], packageVersion: [dir + "/none"]),
                       SystemVersion())
        try writeFile(dir + "/os-release", "ID=debian\nIMAGE_VERSION=\"\"\nIMAGE_ID=\u{1}\u{7}\n")
        try writeFile(dir + "/cmdline", "root=/dev/vda rauc.slot=\n")
        try writeFile(dir + "/version", "\n")
        let v = SystemVersion.read(osRelease: [dir + "/os-release"], cmdline: [dir + "/cmdline"], packageVersion: [dir + "/version"])
        XCTAssertEqual(v, SystemVersion(version: "unknown", imageID: "unknown", slot: "unknown"))
        XCTAssertEqual(SystemVersion.clean(String(repeating: "9", count: 100)).count, 64)
    }

    /// Raspberry Pi OS or Debian with the package: no IMAGE_VERSION, so the package's version.
    func testWithoutAnImageVersionThePackagesVersion() throws {
        let dir = try makeTemporaryDirectory(self)
        try writeFile(dir + "/os-release", "PRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\n")
        try writeFile(dir + "/version", "0~git812.gc6e0b24\n")
        let v = SystemVersion.read(osRelease: [dir + "/os-release"], cmdline: [dir + "/none"], packageVersion: [dir + "/version"])
        XCTAssertEqual(v, SystemVersion(version: "0~git812.gc6e0b24", imageID: "unknown", slot: "unknown"))
    }
}
