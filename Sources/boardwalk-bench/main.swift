import Platform

/// boardwalk-bench: the numbers that say Boardwalk is fast, measured the same way every
/// time. Ratios against plain pixman / memcpy are what to compare across machines.
///   boardwalk-bench [--json] [--frames N] [--only SECTION]
var json = false
var frames = 120
var only: String? = nil
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--json": json = true
    case "--frames":
        guard let v = args.popFirst().flatMap({ Int($0) }), v > 0 else {
            Log.error("--frames takes a positive number"); exit(2)
        }
        frames = v
    case "--only": only = args.popFirst()
    case "-h", "--help":
        print("usage: boardwalk-bench [--json] [--frames N] [--only graphics|audio]")
        exit(0)
    default:
        Log.error("unknown argument \(a)"); exit(2)
    }
}

let sections: [(String, () -> [ReportRow])] = [
    ("graphics", { graphicsBench(frames: frames) }),
    ("audio", { audioBench() }),
]
for (name, run) in sections where only == nil || only == name {
    for row in run() { print(json ? row.json() : row.text()) }
}

#if canImport(Glibc)
import Glibc
#endif
