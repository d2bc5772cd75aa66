#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` once on a new detached thread at a lower CPU priority (`nice`, 0...19): work
/// that must not hold up the run loop's frames, such as decoding pictures at start.
public func runInBackground(_ name: String, nice: Int32 = 10,
                            _ body: @escaping @Sendable () -> Void) throws(SystemError) {
    final class Job: @unchecked Sendable {
        let body: @Sendable () -> Void
        let nice: Int32
        init(_ body: @escaping @Sendable () -> Void, nice: Int32) { self.body = body; self.nice = nice }
    }
    let context = Unmanaged.passRetained(Job(body, nice: max(0, min(19, nice)))).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attributes, { raw in
        let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
        // Per thread on Linux: who = 0 names the calling thread.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, job.nice)
        job.body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<Job>.fromOpaque(context).release()
        throw SystemError("pthread_create", name, errno: rc)
    }
}
