import Arcade
import Audio
import Display
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// Copy-out of whole and typical damaged frames next to memcpy, from Display's helper.
func copyOutBench(iterations: Int) -> [ReportRow] {
    measureCopyOut(iterations: iterations).map { m in
        var figures = [("copyout_ms", m.copyOutSeconds * 1000), ("memcpy_ms", m.memcpySeconds * 1000),
                       ("bytes", Double(m.bytes)), ("copyout_over_memcpy", m.ratio),
                       ("memcpy_dst_ms", m.memcpyDestinationSeconds * 1000),
                       ("dst_bytes", Double(m.destinationBytes)), ("copyout_over_memcpy_dst", m.destinationRatio),
                       ("one_core_ms", m.oneCoreSeconds * 1000), ("one_core_over_memcpy", m.oneCoreRatio)]
        if let f = m.narrowOnlySeconds, let fr = m.narrowOnlyDestinationRatio {
            figures += [("narrow_only_ms", f * 1000), ("narrow_only_over_memcpy_dst", fr)]
        }
        if let cold = m.coldDestination, let cr = m.coldDestinationRatio {
            figures += [("cold_dst_ms", cold.copySeconds * 1000), ("cold_dst_memcpy_dst_ms", cold.memcpySeconds * 1000),
                        ("cold_dst_over_memcpy_dst", cr)]
        }
        return ReportRow(section: "copyout", name: m.name.replacingSpaces(), figures: figures)
    }
}

extension String {
    func replacingSpaces() -> String { String(map { $0 == " " ? "-" : $0 }) }
}

/// The data directory of the source checkout this binary was built in, if any.
func sourceTreeData() -> String? {
    Boardwalk.sourceTreeRoot().map { $0 + "/data" }
}

func makeStateDirectory() -> String? {
    var template = Array("/tmp/boardwalk-bench-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
    return String(cString: made)
}

/// Removes the files the state store wrote, then the directory (it has no subdirectories).
func removeStateDirectory(_ path: String) {
    for name in Files.listDirectory(path) { unlink(path + "/" + name) }
    rmdir(path)
}
