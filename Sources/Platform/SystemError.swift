#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, naming the call and what it was called on ("open /dev/dri/card0").
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
    public let call: String
    public let subject: String
    public let errno: Int32

    public init(_ call: String, _ subject: String = "", errno: Int32 = Glibc.errno) {
        self.call = call
        self.subject = subject
        self.errno = errno
    }

    public var message: String { String(cString: strerror(errno)) }

    public var description: String {
        let what = subject.isEmpty ? call : "\(call) \(subject)"
        return "\(what): \(message) (errno \(errno))"
    }
}

/// Runs a system call that returns -1 on failure, retrying EINTR here and nowhere else.
@discardableResult
public func retryingEINTR<T: BinaryInteger>(
    _ call: String, _ subject: String = "", _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemError(call, subject, errno: code)
    }
}
