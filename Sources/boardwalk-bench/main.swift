import Arcade
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// boardwalk-bench: the numbers that say Boardwalk is fast, measured the same way every
/// time. Ratios against plain pixman / memcpy are what to compare across machines.
let usage = """
usage: boardwalk-bench [--json] [--frames N] [--only SECTION[,SECTION]] [--size WxH]...
                       [--scene NAME[,NAME]] [--busy SECONDS] [--budget SECONDS] [--data-dir DIR]
  sections: startup, graphics, scenes, copyout, audio, latency, peer (all by default)
  --frames N   N measured frames per case, fixed work, no wall-clock-driven sections
               (the audio latency run is left out): for instruction counts under
               valgrind --tool=callgrind (see scripts/bench-callgrind.sh)
  --size WxH   scene and latency sizes (default 800x480, 1280x800 and 1920x1080)
  --scene      menu, attract, game-<id> (default all)
  --busy S     seconds of autoplay before a game is measured (default 12)
  --budget S   measured seconds per scene and phase, at least 10 frames (default 1.5; 0: no limit)
"""

let processStart = processStartMonotonic()
var json = false
var frames = 120
var deterministic = false
var only: [String]? = nil
var sizes: [(Int, Int)] = []
var scenes: [String]? = nil
var busy = 12.0
var budget = 1.5
var args = CommandLine.arguments.dropFirst()

func fail(_ message: String) -> Never {
    Log.error(message)
    printToStandardError(usage)
    exit(2)
}

while let a = args.popFirst() {
    switch a {
    case "--json": json = true
    case "--frames":
        guard let v = args.popFirst().flatMap({ Int($0) }), v > 0, v <= 100_000 else { fail("--frames takes a number from 1 to 100000") }
        frames = v
        deterministic = true
    case "--only":
        guard let v = args.popFirst() else { fail("--only takes section names") }
        only = v.split(separator: ",").map(String.init)
    case "--size":
        guard let v = args.popFirst() else { fail("--size takes WxH") }
        let p = v.split(separator: "x").compactMap { Int($0) }
        guard p.count == 2, (64...8192).contains(p[0]), (64...8192).contains(p[1]) else { fail("--size takes WxH, e.g. 1280x800") }
        sizes.append((p[0], p[1]))
    case "--scene":
        guard let v = args.popFirst() else { fail("--scene takes scene names") }
        scenes = v.split(separator: ",").map(String.init)
    case "--busy":
        guard let v = args.popFirst().flatMap({ Double($0) }), v >= 0, v <= 3600 else { fail("--busy takes seconds (0 to 3600)") }
        busy = v
    case "--budget":
        guard let v = args.popFirst().flatMap({ Double($0) }), v >= 0, v <= 600 else { fail("--budget takes seconds (0 to 600)") }
        budget = v
    case "--data-dir":
        guard let v = args.popFirst() else { fail("--data-dir takes a directory") }
        benchDataDirectory = v
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        fail("unknown argument \(a)")
    }
}
let known = ["startup", "graphics", "scenes", "copyout", "audio", "latency", "peer"]
if let unknown = only?.first(where: { !known.contains($0) }) { fail("unknown section \(unknown)") }
if sizes.isEmpty { sizes = [(800, 480), (1280, 800), (1920, 1080)] }
if benchDataDirectory == nil { benchDataDirectory = sourceTreeData() }

// A fresh state directory: saved scores would change what the menu draws.
guard let stateDirectory = makeStateDirectory() else { fail("cannot create a state directory under /tmp") }

let sceneOptions = SceneBenchOptions(frames: frames, warmup: deterministic ? 1 : 2, sizes: sizes,
                                     busySeconds: busy, only: scenes, budget: deterministic ? 0 : budget,
                                     minimumFrames: 10)
let sections: [(String, () -> [ReportRow])] = [
    ("startup", { startupBench(stateDirectory: stateDirectory, processStart: processStart) }),
    ("graphics", { graphicsBench(frames: frames) }),
    ("scenes", { sceneBench(sceneOptions, stateDirectory: stateDirectory) }),
    ("copyout", { copyOutBench(iterations: deterministic ? 2 : 30) }),
    ("audio", { audioBench(deterministic: deterministic) }),
    ("latency", { latencyBench(stateDirectory: stateDirectory + "/latency", taps: deterministic ? 10 : 60, sizes: sizes) }),
    // SDL2's software renderer on the same composition (bench/peers, built by `make bench`).
    ("peer", { peerBench(sizes: sizes, frames: deterministic ? frames : 60, directory: stateDirectory) }),
]
let started = monotonicSeconds()
for (name, run) in sections where only == nil || only!.contains(name) {
    for row in run() {
        print(json ? row.json() : row.text())
        fflush(nil)
    }
}
if deterministic {
    let row = ReportRow(section: "callgrind", name: "frames", figures: [("frames", Double(drawnFrames))])
    print(json ? row.json() : row.text())
} else if !json {
    print("bench: \(format(monotonicSeconds() - started)) s")
}
removeStateDirectory(stateDirectory)
