import XCTest
@testable import Input
import Platform

/// The device layer above the kernel: inotify hotplug and the InputSystem's bookkeeping,
/// on a scratch directory. Real evdev nodes need /dev/input (the virtual board).
final class HotplugTests: XCTestCase {
    var directory = ""
    var logged: [String] = []

    var savedSink: ((String) -> Void)?
    var savedInterval = 0.0

    override func setUp() {
        savedSink = Log.sink
        savedInterval = Log.repeatInterval
        directory = NSTemporaryDirectory() + "boardwalk-input-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        logged = []
        Log.sink = { [weak self] line in self?.logged.append(line) }
        Log.repeatInterval = 0
    }

    /// Created in place (FileManager writes a temp file and renames it).
    func touch(_ path: String) {
        let fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = write(fd, "not a device", 12)
        close(fd)
    }

    override func tearDown() {
        if let savedSink { Log.sink = savedSink }
        Log.repeatInterval = savedInterval
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testInotifySeesNodesComeAndGo() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let hotplug = try InputHotplug(directory: directory)
        XCTAssertTrue(hotplug.isWatchingDirectory)
        touch(directory + "/event7")
        chmod(directory + "/event7", 0o660)
        unlink(directory + "/event7")
        XCTAssertEqual(hotplug.readChanges(), [.created("event7"), .attributesChanged("event7"), .deleted("event7")])
        XCTAssertEqual(hotplug.readChanges(), [])
    }

    func testMissingDirectoryIsWatchedUntilItAppears() throws {
        let hotplug = try InputHotplug(directory: directory)
        XCTAssertFalse(hotplug.isWatchingDirectory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        XCTAssertEqual(hotplug.readChanges(), [.directoryAppeared])
        XCTAssertTrue(hotplug.isWatchingDirectory)
        touch(directory + "/event1")
        XCTAssertEqual(hotplug.readChanges(), [.created("event1")])
        try FileManager.default.removeItem(atPath: directory)
        XCTAssertEqual(hotplug.readChanges(), [.deleted("event1"), .directoryGone])
        XCTAssertFalse(hotplug.isWatchingDirectory)
    }

    func testSystemWithoutInputDirectoryKeepsRunning() throws {
        let system = InputSystem(config: InputConfig(transform: TouchTransform(displayWidth: 800, displayHeight: 480),
                                                     directory: directory))
        XCTAssertEqual(logged.filter { $0.contains("does not exist") }.count, 1, "\(logged)")
        XCTAssertEqual(system.pollDescriptors.count, 1, "only inotify")
        XCTAssertEqual(system.handleReadable(fd: FileDescriptor(rawValue: 12345), now: 1), [])
        XCTAssertEqual(system.rescan(now: 1), [])
        XCTAssertEqual(logged.filter { $0.contains("does not exist") }.count, 1, "logged once")
        // The directory appears with something that is not an evdev node: refused, never retried.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        XCTAssertEqual(system.handleReadable(fd: system.pollDescriptors[0], now: 2), [])
        touch(directory + "/event3")
        touch(directory + "/mice")
        XCTAssertEqual(system.handleReadable(fd: system.pollDescriptors[0], now: 3), [])
        XCTAssertTrue(logged.contains { $0.contains("cannot use \(directory)/event3") && $0.contains("libevdev_new_from_fd") },
                      "\(logged)")
        XCTAssertFalse(logged.contains { $0.contains("mice") })
        XCTAssertNil(system.nextDeadline)
        XCTAssertEqual(system.pollDescriptors.count, 1)
    }

    func testNodeThatCannotBeOpenedYetIsRetriedForAboutASecond() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let system = InputSystem(config: InputConfig(transform: TouchTransform(displayWidth: 800, displayHeight: 480),
                                                     directory: directory))
        // A node whose open fails with a transient error (as EACCES does before udev's
        // chmod): here a dangling symlink, ENOENT, since tests run as root.
        symlink(directory + "/nowhere", directory + "/event4")
        var now = 10.0
        _ = system.handleReadable(fd: system.pollDescriptors.last!, now: now)
        var attempts = 1
        while let due = system.nextDeadline {
            XCTAssertGreaterThan(due, now)
            now = due
            _ = system.handleDeadline(now: now)
            attempts += 1
        }
        XCTAssertEqual(attempts, InputSystem.retryDelays.count + 1)
        XCTAssertEqual(now, 10 + InputSystem.retryDelays.reduce(0, +), accuracy: 1e-9)
        XCTAssertGreaterThan(now - 10, 0.9)
        XCTAssertLessThan(now - 10, 2.5)
        XCTAssertEqual(logged.filter { $0.contains("cannot use \(directory)/event4") }.count, 1, "\(logged)")
    }

    func testRetryStopsWhenTheNodeGoesAway() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let system = InputSystem(config: InputConfig(transform: TouchTransform(displayWidth: 800, displayHeight: 480),
                                                     directory: directory))
        symlink(directory + "/nowhere", directory + "/event4")
        _ = system.handleReadable(fd: system.pollDescriptors.last!, now: 1)
        XCTAssertNotNil(system.nextDeadline)
        unlink(directory + "/event4")
        _ = system.handleReadable(fd: system.pollDescriptors.last!, now: 1.01)
        XCTAssertNil(system.nextDeadline)
    }
}
