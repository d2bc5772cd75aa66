import Foundation
import XCTest
import Glibc
@testable import Platform

/// Signals the interrupted-read test's handler counted (a C handler cannot capture).
nonisolated(unsafe) private var interruptions = 0

final class FileDescriptorTests: XCTestCase {
    private func isOpen(_ fd: FileDescriptor) -> Bool {
        fcntl(fd.rawValue, F_GETFD) >= 0
    }

    func testOpenNamesThePathAndCloseReleasesTheNumber() throws {
        XCTAssertThrowsError(try FileDescriptor.open("/nonexistent/boardwalk", O_RDONLY | O_CLOEXEC)) { error in
            XCTAssertEqual(error as? SystemError, SystemError("open", "/nonexistent/boardwalk", errno: ENOENT))
        }
        let fd = try FileDescriptor.open("/dev/null", O_RDONLY | O_CLOEXEC)
        XCTAssertTrue(isOpen(fd))
        XCTAssertNotEqual(fcntl(fd.rawValue, F_GETFD) & FD_CLOEXEC, 0)
        fd.close()
        let result = fcntl(fd.rawValue, F_GETFD)
        let code = errno
        XCTAssertEqual(result, -1)
        XCTAssertEqual(code, EBADF)
    }

    func testAnInvalidDescriptorThrowsEBADFNamingWhatItIs() {
        var buffer = [UInt8](repeating: 0, count: 4)
        let invalid = FileDescriptor(rawValue: -1)
        XCTAssertThrowsError(try invalid.read(into: &buffer)) { error in
            XCTAssertEqual(error as? SystemError, SystemError("read", "fd -1", errno: EBADF))
        }
        XCTAssertThrowsError(try invalid.writeAll([1], "the log")) { error in
            XCTAssertEqual(error as? SystemError, SystemError("write", "the log", errno: EBADF))
        }
    }

    func testNonBlockingReadSaysNothingNowThenDataThenEndOfFile() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { r.close() }
        _ = fcntl(r.rawValue, F_SETFL, O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertNil(try r.read(into: &buffer), "EAGAIN: nothing written yet")
        try w.writeAll([1, 2, 3])
        XCTAssertEqual(try r.read(into: &buffer), 3)
        XCTAssertEqual(Array(buffer.prefix(3)), [1, 2, 3])
        w.close()
        XCTAssertEqual(try r.read(into: &buffer), 0, "end of file once the writer is gone")
    }

    func testARecordReadsWholeOrNotAtAll() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { r.close(); w.close() }
        _ = fcntl(r.rawValue, F_SETFL, O_NONBLOCK)
        var record: UInt64 = 0
        XCTAssertFalse(try r.read(&record), "nothing pending")
        try w.writeAll(withUnsafeBytes(of: UInt64(42).littleEndian, Array.init))
        XCTAssertTrue(try r.read(&record))
        XCTAssertEqual(record, 42)
        try w.writeAll([1, 2, 3])
        XCTAssertFalse(try r.read(&record), "a short read is no record")
    }

    func testWriteAllToAFullNonBlockingPipeThrowsEAGAIN() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { r.close(); w.close() }
        _ = fcntl(w.rawValue, F_SETFL, O_NONBLOCK)
        // A pipe holds 64 KB by default (at most 1 MB after F_SETPIPE_SZ by root).
        let tooMuch = [UInt8](repeating: 7, count: 4 << 20)
        XCTAssertThrowsError(try w.writeAll(tooMuch, "pipe")) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EAGAIN)
        }
    }

    /// A signal with a handler (and no SA_RESTART) interrupts a blocked read with EINTR; the
    /// read goes on and returns the byte written after it.
    func testAReadInterruptedByASignalIsRetried() throws {
        let (r, w) = try FileDescriptor.pipe()
        defer { r.close(); w.close() }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        XCTAssertEqual(sigaction(SIGUSR2, &action, &previous), 0)
        var unblock = sigset_t(), previousMask = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &unblock, &previousMask)
        defer {
            sigaction(SIGUSR2, &previous, nil)
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        interruptions = 0
        let reader = pthread_self()
        let writer = Thread {
            usleep(100_000)
            pthread_kill(reader, SIGUSR2)
            usleep(100_000)
            try? w.writeAll([9])
        }
        writer.start()
        var buffer = [UInt8](repeating: 0, count: 1)
        XCTAssertEqual(try r.read(into: &buffer), 1)
        XCTAssertEqual(buffer, [9])
        XCTAssertEqual(interruptions, 1, "the read was interrupted once on the way")
    }
}
