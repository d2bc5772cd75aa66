import XCTest
@testable import Display
import Platform
import Glibc

final class DRMCardTests: XCTestCase {
    /// The presenter closes its card on shutdown and again at deinit: the second close must
    /// leave alone whatever got the number in between.
    func testClosingTwiceLeavesAReusedNumberAlone() throws {
        // Any node opens as a card; only the libdrm calls need a real one.
        let card = try DRMCard(path: "/dev/null")
        let number = try XCTUnwrap(card.fileDescriptor).rawValue
        card.close()
        XCTAssertNil(card.fileDescriptor)
        let reuser = try FileDescriptor.open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { reuser.close() }
        XCTAssertEqual(reuser.rawValue, number, "open takes the lowest free number")
        card.close()
        XCTAssertGreaterThanOrEqual(fcntl(reuser.rawValue, F_GETFD), 0, "still open after the second close")
    }
}
