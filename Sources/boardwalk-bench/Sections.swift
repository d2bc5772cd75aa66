import Audio
import Display
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// Copy-out of whole and typical damaged frames next to memcpy, from Display's helper.
func copyOutBench(iterations: Int) -> [ReportRow] {
    measureCopyOut(iterations: iterations).map { m in
        ReportRow(section: "copyout", name: m.name.replacingSpaces(),
                  figures: [("copyout_ms", m.copyOutSeconds * 1000), ("memcpy_ms", m.memcpySeconds * 1000),
                            ("bytes", Double(m.bytes)), ("copyout_over_memcpy", m.ratio)])
    }
}

/// Mixing cost of 16 busy voices per period, and the tap-to-first-sample latency (left
/// out of the deterministic mode: it sleeps and waits on a clock).
func audioBench(deterministic: Bool) -> [ReportRow] {
    let library = SoundLibrary()
    let config = AudioConfig()
    var rows: [ReportRow] = []
    let mix = AudioBenchmark.mixingCost(library: library, voices: 16, periodFrames: config.periodFrames,
                                        periods: deterministic ? 200 : 2000)
    rows.append(ReportRow(section: "audio", name: "mix-16-voices-\(config.periodFrames)-frames",
                          figures: [("realtime_percent_median", mix.median), ("realtime_percent_max", mix.max),
                                    ("realtime_percent_mean", mix.mean)]))
    guard !deterministic else { return rows }
    do {
        let (latency, simulated) = try AudioBenchmark.tapLatency(library: library, config: config)
        rows.append(ReportRow(section: "audio", name: "tap-to-first-sample",
                              figures: [("median_ms", latency.median * 1000), ("max_ms", latency.max * 1000),
                                        ("taps", Double(latency.count))],
                              notes: [("device", simulated ? "simulated \(config.periodFrames)x\(config.periods)" : config.device)]))
    } catch {
        rows.append(ReportRow(section: "audio", name: "tap-to-first-sample", figures: [], notes: [("error", "\(error)")]))
    }
    return rows
}

extension String {
    func replacingSpaces() -> String { String(map { $0 == " " ? "-" : $0 }) }
}

/// The data directory of the source checkout this binary was built in, if any.
func sourceTreeData() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let parts = exe.split(separator: "/", omittingEmptySubsequences: false)
    guard let build = parts.firstIndex(of: ".build") else { return nil }
    let root = parts[..<build].joined(separator: "/")
    return Files.isDirectory(root + "/data") ? root + "/data" : nil
}

func makeStateDirectory() -> String? {
    var template = Array("/tmp/boardwalk-bench-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
    return String(cString: made)
}

/// Removes the files the state store wrote, then the directory (it has no subdirectories).
func removeStateDirectory(_ path: String) {
    guard let dir = opendir(path) else { return }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    closedir(dir)
    for name in names { unlink(path + "/" + name) }
    rmdir(path)
}
