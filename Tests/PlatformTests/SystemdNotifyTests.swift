import XCTest
import Glibc
@testable import Platform

/// A real AF_UNIX datagram socket standing in for the service manager.
private final class FakeManager {
    let fd: Int32
    let path: String?

    /// `name` starting with "@" binds in the abstract namespace.
    init(name: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        self.fd = fd
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        path = abstract ? nil : name
        guard result == 0 else { throw SystemError("bind", name) }
    }

    /// The next datagram, or nil after `timeout` seconds.
    func receive(timeout: Double = 1) -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }
}

final class SystemdNotifyTests: XCTestCase {
    private func socketPath() -> String {
        "/tmp/boardwalk-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
    }

    func testMessagesReachAPathSocket() throws {
        let path = socketPath()
        let manager = try FakeManager(name: path)
        let notify = try XCTUnwrap(try SystemdNotify(environment: ["NOTIFY_SOCKET": path]))
        XCTAssertNil(notify.watchdogInterval)
        try notify.ready(status: "menu\nshown")
        XCTAssertEqual(manager.receive(), "READY=1\nSTATUS=menu shown")
        try notify.status("playing 2048")
        XCTAssertEqual(manager.receive(), "STATUS=playing 2048")
        try notify.stopping()
        XCTAssertEqual(manager.receive(), "STOPPING=1")
        try notify.reloading()
        let reload = try XCTUnwrap(manager.receive())
        XCTAssertTrue(reload.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        XCTAssertFalse(notify.feedWatchdog(), "no watchdog configured")
        XCTAssertNil(manager.receive(timeout: 0.05))
    }

    func testAbstractSocket() throws {
        let name = "@boardwalk-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let manager = try FakeManager(name: name)
        let notify = try SystemdNotify(address: name)
        try notify.ready()
        XCTAssertEqual(manager.receive(), "READY=1")
    }

    func testWatchdogIsRateLimitedToAQuarterOfTheInterval() throws {
        let path = socketPath()
        let manager = try FakeManager(name: path)
        let notify = try XCTUnwrap(try SystemdNotify(
            environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "\(getpid())"]))
        XCTAssertEqual(notify.watchdogInterval, 2.0)
        XCTAssertEqual(notify.watchdogTimerPeriod, 0.5)
        // A frame every 1/60 s for 2.5 s of pretend time.
        var sent: [Double] = []
        var now = 100.0
        while now < 102.5 {
            if notify.feedWatchdog(now: now) { sent.append(now) }
            now += 1.0 / 60
        }
        XCTAssertEqual(sent.count, 5)
        for (a, b) in zip(sent, sent.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b - a, 0.5 - 1e-9)
            XCTAssertLessThanOrEqual(b - a, 1.0, "never more than half the interval apart")
        }
        for _ in sent { XCTAssertEqual(manager.receive(), "WATCHDOG=1") }
        XCTAssertNil(manager.receive(timeout: 0.05))
    }

    func testWatchdogEnvironment() {
        XCTAssertEqual(SystemdNotify.watchdogInterval(usec: "30000000", pid: nil, ownPID: 5), 30)
        XCTAssertNil(SystemdNotify.watchdogInterval(usec: "30000000", pid: "6", ownPID: 5))
        XCTAssertNil(SystemdNotify.watchdogInterval(usec: "soon", pid: nil, ownPID: 5))
        XCTAssertNil(SystemdNotify.watchdogInterval(usec: "0", pid: nil, ownPID: 5))
        XCTAssertNil(SystemdNotify.watchdogInterval(usec: nil, pid: "5", ownPID: 5))
    }

    func testNoSocketMeansNoNotifier() throws {
        XCTAssertNil(try SystemdNotify(environment: [:]))
        XCTAssertNil(try SystemdNotify(environment: ["NOTIFY_SOCKET": ""]))
    }

    func testBadAddressesAreClearErrors() throws {
        XCTAssertThrowsError(try SystemdNotify(address: "relative/path")) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EAFNOSUPPORT)
        }
        XCTAssertThrowsError(try SystemdNotify(address: "/" + String(repeating: "x", count: 200))) { error in
            XCTAssertEqual((error as? SystemError)?.errno, ENAMETOOLONG)
        }
        let notify = try SystemdNotify(address: socketPath())
        XCTAssertThrowsError(try notify.ready()) { error in
            let e = error as? SystemError
            XCTAssertEqual(e?.call, "sendto")
            XCTAssertTrue(e?.errno == ENOENT || e?.errno == ECONNREFUSED)
        }
    }
}
