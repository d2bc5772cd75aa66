#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests that need a real second process (killed writers, signals as
/// systemd sends them): `body` runs in the child with the write end of a pipe and never
/// returns; the parent gets the child's pid and the pipe's read end. Nil if fork or pipe
/// failed.
public func forkChild(_ body: (_ writeEnd: Int32) -> Never) -> (pid: pid_t, readEnd: Int32)? {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    let child = fork()
    if child < 0 {
        close(fds[0])
        close(fds[1])
        return nil
    }
    if child == 0 {
        close(fds[0])
        body(fds[1])
    }
    close(fds[1])
    return (child, fds[0])
}
