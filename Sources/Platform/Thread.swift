#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// Names the calling thread as top, ps -L and /proc/PID/task/TID/comm show it (Linux keeps
/// 15 bytes): the system test finds the sound thread by its name.
public func nameCurrentThread(_ name: String) {
    _ = bw_name_current_thread(name)
}

/// Runs `body` once on a new detached thread at a lower CPU priority (`nice`, 0...19): work
/// that must not hold up the run loop's frames, such as decoding pictures at start.
public func runInBackground(_ name: String, nice: Int32 = 10,
                            _ body: @escaping @Sendable () -> Void) throws(SystemError) {
    final class Job: @unchecked Sendable {
        let body: @Sendable () -> Void
        let nice: Int32
        let name: String
        init(_ body: @escaping @Sendable () -> Void, nice: Int32, name: String) { self.body = body; self.nice = nice; self.name = name }
    }
    let context = Unmanaged.passRetained(Job(body, nice: max(0, min(19, nice)), name: name)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
        // Per thread on Linux: who = 0 names the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, job.nice)
        nameCurrentThread(job.name)
        job.body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<Job>.fromOpaque(context).release()
        throw SystemError("pthread_create", name, errno: rc)
    }
}

/// One value worked out off the run loop: made with the work, which runs on a new
/// thread (`inBackground`) or at once on the caller's (headless runs and tests, where the
/// virtual clock must not race a real thread); the loop reads `value` on its later rounds,
/// nil until the work is done. A thread that cannot be made does the work at once: slower,
/// never lost.
public final class BackgroundResult<Value: Sendable>: Sendable {
    private let result = Mutex<Value?>(nil)

    public init(_ name: String, inBackground: Bool, nice: Int32 = 0, _ work: @escaping @Sendable () -> Value) {
        if inBackground {
            do {
                try runInBackground(name, nice: nice) { [self] in
                    let value = work()
                    result.withLock { $0 = value }
                }
                return
            } catch {
                Log.warning("\(name): \(error); working on the run loop instead")
            }
        }
        let value = work()
        result.withLock { $0 = value }
    }

    public var value: Value? { result.withLock { $0 } }
}
