import Synchronization
import XCTest
@testable import Platform

/// Background threads carry their names where top and the system test look: the kernel's
/// comm of the thread.
final class ThreadTests: XCTestCase {
    func testABackgroundThreadIsNamedAndNicer() throws {
        let seen = Mutex<(name: String, nice: Int32)?>(nil)
        try runInBackground("bw-named-thread-too-long", nice: 7) {
            let name = (try? Files.readText("/proc/thread-self/comm")) ?? ""
            errno = 0
            let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            seen.withLock { $0 = (name.trimmingCharacters(in: .whitespacesAndNewlines), nice) }
        }
        let deadline = Date().addingTimeInterval(5)
        while seen.withLock({ $0 == nil }) && Date() < deadline { usleep(1000) }
        let result = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertEqual(result.name, "bw-named-thread", "the first 15 bytes, as Linux keeps them")
        XCTAssertEqual(result.nice, 7)
    }
}

/// Work for the run loop done elsewhere: on its own thread, or at once when asked.
private func threadID() -> pthread_t { pthread_self() }

final class BackgroundResultTests: XCTestCase {

    func testWorkOnItsOwnThreadArrivesLater() throws {
        let caller = threadID()
        let gate = Mutex(false)
        let result = BackgroundResult("bw-test-result", inBackground: true) { () -> pthread_t in
            while !gate.withLock({ $0 }) { usleep(500) }
            return threadID()
        }
        XCTAssertNil(result.value, "nothing until the work is done")
        gate.withLock { $0 = true }
        let deadline = Date().addingTimeInterval(5)
        while result.value == nil && Date() < deadline { usleep(1000) }
        let worker = try XCTUnwrap(result.value)
        XCTAssertNotEqual(worker, caller, "done on another thread")
    }

    func testWorkInlineIsThereAtOnce() {
        let caller = threadID()
        let result = BackgroundResult("bw-test-inline", inBackground: false) { threadID() }
        XCTAssertEqual(result.value, caller)
    }
}
