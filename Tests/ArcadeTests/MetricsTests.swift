import Input
import Platform
import TestSupport
import UI
import XCTest
@testable import Arcade

/// A strict reader of Prometheus' text format (0.0.4), as the node exporter's textfile
/// collector reads it: every sample after its family's HELP and TYPE, valid names, label
/// values with only the three escapes, numbers that parse, no series twice.
struct ParsedMetrics {
    struct Failure: Error, CustomStringConvertible { var description: String }
    var types: [String: String] = [:]
    var help: [String: String] = [:]
    /// name{labels sorted} -> value
    var samples: [String: Double] = [:]
    var order: [String] = []

    static func key(_ name: String, _ labels: [String: String]) -> String {
        labels.isEmpty ? name : name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
    }

    subscript(_ name: String, _ labels: [String: String] = [:]) -> Double? { samples[Self.key(name, labels)] }

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Failure(description: "no newline at the end") }
        func validName(_ s: Substring) -> Bool {
            guard let f = s.first, f.isLetter || f == "_" || f == ":" else { return false }
            return s.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == ":" }
        }
        var current: String?
        for (n, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let where_ = "line \(n + 1): \(line)"
            guard !line.isEmpty else { throw Failure(description: "\(where_): empty line") }
            if line.hasPrefix("# HELP ") {
                let rest = line.dropFirst(7)
                guard let sp = rest.firstIndex(of: " "), validName(rest[..<sp]) else { throw Failure(description: "\(where_): bad HELP") }
                let name = String(rest[..<sp])
                guard help[name] == nil else { throw Failure(description: "\(where_): second HELP for \(name)") }
                help[name] = String(rest[rest.index(after: sp)...])
                current = name
                continue
            }
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, validName(parts[0]), ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1]),
                      String(parts[0]) == current, types[String(parts[0])] == nil
                else { throw Failure(description: "\(where_): bad TYPE") }
                types[String(parts[0])] = String(parts[1])
                continue
            }
            guard !line.hasPrefix("#") else { throw Failure(description: "\(where_): unexpected comment") }
            // name{labels} value
            var i = line.startIndex
            while i < line.endIndex, line[i] != "{", line[i] != " " { i = line.index(after: i) }
            let name = line[line.startIndex..<i]
            guard validName(name), let family = current else { throw Failure(description: "\(where_): bad name or no family") }
            let type = types[family]
            let familyOK = name == family || (type == "histogram" && ["_bucket", "_sum", "_count"].contains { name == family + $0 })
            guard familyOK else { throw Failure(description: "\(where_): \(name) outside its family \(family)") }
            var labels: [String: String] = [:]
            if i < line.endIndex, line[i] == "{" {
                i = line.index(after: i)
                while line[i] != "}" {
                    var j = i
                    while line[j] != "=" { j = line.index(after: j) }
                    let label = line[i..<j]
                    guard validName(label), !label.hasPrefix("__"), line[line.index(after: j)] == "\"" else {
                        throw Failure(description: "\(where_): bad label")
                    }
                    j = line.index(j, offsetBy: 2)
                    var value = ""
                    while line[j] != "\"" {
                        if line[j] == "\\" {
                            j = line.index(after: j)
                            switch line[j] {
                            case "\\": value.append("\\")
                            case "\"": value.append("\"")
                            case "n": value.append("\n")
                            default: throw Failure(description: "\(where_): unknown escape \\\(line[j])")
                            }
                        } else {
                            value.append(line[j])
                        }
                        j = line.index(after: j)
                    }
                    guard labels[String(label)] == nil else { throw Failure(description: "\(where_): label twice") }
                    labels[String(label)] = value
                    i = line.index(after: j)
                    if line[i] == "," { i = line.index(after: i) } else if line[i] != "}" {
                        throw Failure(description: "\(where_): expected , or }")
                    }
                }
                i = line.index(after: i)
            }
            guard i < line.endIndex, line[i] == " " else { throw Failure(description: "\(where_): no value") }
            let valueText = line[line.index(after: i)...]
            let value: Double
            switch valueText {
            case "+Inf": value = .infinity
            case "-Inf": value = -.infinity
            case "NaN": value = .nan
            default:
                guard let v = Double(valueText), !valueText.contains(" ") else { throw Failure(description: "\(where_): bad value") }
                value = v
            }
            let key = Self.key(String(name), labels)
            guard samples[key] == nil else { throw Failure(description: "\(where_): series twice") }
            samples[key] = value
            order.append(key)
        }
        for (name, _) in help where types[name] == nil { throw Failure(description: "\(name): HELP without TYPE") }
    }
}

final class MetricsTests: XCTestCase {
    private func runner(metricsDir: String?, prepare: @escaping (StateStore) -> Void = { _ in }) throws -> (HeadlessRunner, StateStore) {
        try makeRunner(self, configure: { s in
            s.metrics.textfileDir = metricsDir ?? "none"
            s.kiosk.playMode = .credits
        }, prepare: prepare)
    }

    func testTheTextParsesBackStrictlyWithEveryFigure() throws {
        let (runner, _) = try runner(metricsDir: nil) { store in
            store.increment("plays.beat_zombies", by: 3, now: 1)
            store.increment("playtime.beat_zombies", by: 95, now: 1)
            store.setCounter("starts", 7, now: 1)
            store.setCounter("crashes", 2, now: 1)
            store.setCounter("watchdog_restarts", 1, now: 1)
        }
        let k = runner.kiosk
        // A value with every character the format must escape.
        k.systemVersion = SystemVersion(version: "2026.12 \"rc\" \\ 1\nx", imageID: "boardwalk-qemu-x86_64", slot: "B")
        k.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now)
        k.handle(.key(KeyEvent(key: .coin, isPressed: true, time: runner.now)), now: runner.now)
        k.open(game: "2048")
        runner.advance(2)
        k.goHome()
        runner.advance(0.5)
        k.reporting.figures.closeWindow(now: 100, cpuSeconds: 1.0)
        k.reporting.figures.closeWindow(now: 160, cpuSeconds: 1.6)   // no frames between: 0.6 s in 60 s
        let text = k.reporting.snapshot(of: k, cpuSeconds: 4.25).text
        let m = try ParsedMetrics(text)
        XCTAssertEqual(m["boardwalk_build_info", ["version": "2026.12 \"rc\" \\ 1\nx", "image_id": "boardwalk-qemu-x86_64", "slot": "B"]], 1)
        XCTAssertTrue(text.contains(#"version="2026.12 \"rc\" \\ 1\nx""#), text)
        XCTAssertEqual(m["boardwalk_plays_total", ["game": "beat_zombies"]], 3)
        XCTAssertEqual(m["boardwalk_plays_total", ["game": "2048"]], 1)
        XCTAssertEqual(m["boardwalk_plays_total", ["game": "memory"]], 0)
        XCTAssertEqual(m["boardwalk_play_seconds_total", ["game": "beat_zombies"]], 95)
        XCTAssertEqual(m["boardwalk_play_seconds_total", ["game": "2048"]], 2)
        XCTAssertEqual(m["boardwalk_coins_total"], 2)
        XCTAssertEqual(m["boardwalk_credits_used_total"], 1)
        XCTAssertEqual(m["boardwalk_credits"], 1)
        XCTAssertEqual(m["boardwalk_starts_total"], 7)
        XCTAssertEqual(m["boardwalk_crashes_total"], 2)
        XCTAssertEqual(m["boardwalk_watchdog_restarts_total"], 1)
        XCTAssertEqual(m["boardwalk_cpu_seconds_total"], 4.25)
        XCTAssertEqual(try XCTUnwrap(m["boardwalk_idle_cpu_ratio"]), 0.01, accuracy: 1e-9)
        XCTAssertEqual(m.types["boardwalk_plays_total"], "counter")
        XCTAssertEqual(m.types["boardwalk_frame_seconds"], "histogram")
        // The histogram: cumulative, ending at +Inf with every frame drawn.
        let frames = try XCTUnwrap(m["boardwalk_frame_seconds_count"])
        XCTAssertEqual(Int(frames), k.reporting.figures.frames.count)
        XCTAssertGreaterThan(frames, 0)
        XCTAssertEqual(m["boardwalk_frame_seconds_bucket", ["le": "+Inf"]], frames)
        var previous = 0.0
        for bound in RunFigures.frameBuckets {
            let n = try XCTUnwrap(m["boardwalk_frame_seconds_bucket", ["le": MetricsText.number(bound)]])
            XCTAssertGreaterThanOrEqual(n, previous)
            previous = n
        }
        // Every game of the catalogue has its series.
        for game in GameCatalog.standard.ids { XCTAssertNotNil(m["boardwalk_plays_total", ["game": game]]) }
    }

    func testTheParserRefusesWhatTheCollectorWould() {
        for bad in ["boardwalk_x 1\n", "# HELP a x\n# TYPE a counter\na{l=\"\\t\"} 1\n", "# HELP a x\n# TYPE a counter\na 1",
                    "# HELP a x\n# TYPE a counter\na one\n", "# HELP a x\n# TYPE a counter\na 1\na 2\n"] {
            XCTAssertThrowsError(try ParsedMetrics(bad), bad)
        }
        XCTAssertEqual(MetricsText.escapeLabel("a\"b\\c\nd"), #"a\"b\\c\nd"#)
        XCTAssertEqual(MetricsText.number(.infinity), "+Inf")
        XCTAssertEqual(MetricsText.number(3), "3")
        XCTAssertEqual(MetricsText.number(0.0167), "0.0167")
    }

    func testWrittenAtMostOnceAMinuteFromTheTick() throws {
        let dir = try makeTemporaryDirectory(self)
        let (runner, _) = try runner(metricsDir: dir)
        let k = runner.kiosk
        let writer = try XCTUnwrap(k.reporting.writer)
        XCTAssertEqual(writer.path, dir + "/boardwalk.prom")
        XCTAssertEqual(writer.writes, 1, "the first tick (at start) writes")
        // More frames and ticks at the same time: nothing more.
        for _ in 0..<30 { runner.frame() }
        XCTAssertEqual(writer.writes, 1)
        let t0 = runner.now
        XCTAssertEqual(k.nextDeadline.map { $0 <= t0 + 60 }, true, "the loop wakes for the next write")
        for s in stride(from: 1.0, to: 60, by: 7) { k.tick(now: t0 + s) }
        XCTAssertEqual(writer.writes, 1, "not again within the minute")
        k.store.countPlay(game: "memory", now: t0 + 61)
        k.tick(now: t0 + 60)
        XCTAssertEqual(writer.writes, 2)
        k.tick(now: t0 + 119.9)
        XCTAssertEqual(writer.writes, 2)
        k.tick(now: t0 + 125)
        XCTAssertEqual(writer.writes, 3)
        // The run's start (the live kiosk's first frame) is written at the next tick.
        k.reporting.runBegan()
        k.tick(now: t0 + 126)
        XCTAssertEqual(writer.writes, 4, "the run's start is written at once")
        k.tick(now: t0 + 127)
        XCTAssertEqual(writer.writes, 4, "then once a minute again")
        let m = try ParsedMetrics(try XCTUnwrap(readFile(writer.path)))
        XCTAssertEqual(m["boardwalk_plays_total", ["game": "memory"]], 1)
        XCTAssertEqual(m["boardwalk_build_info", ["version": "unknown", "image_id": "unknown", "slot": "unknown"]], 1)
    }

    func testTheWriteIsAtomicAndReadableByTheExporter() throws {
        let dir = try makeTemporaryDirectory(self)
        let writer = MetricsWriter(directory: dir)
        try writeFile(writer.path, "old\n")
        var before = stat()
        XCTAssertEqual(stat(writer.path, &before), 0)
        let old = umask(0o077)
        defer { umask(old) }
        XCTAssertTrue(writer.writeIfDue(now: 5) { "# HELP a x\n# TYPE a gauge\na 1\n" })
        var after = stat()
        XCTAssertEqual(stat(writer.path, &after), 0)
        XCTAssertNotEqual(before.st_ino, after.st_ino, "a new file renamed over the old, not rewritten in place")
        XCTAssertEqual(after.st_mode & 0o777, 0o644, "readable by the exporter's user despite the kiosk's umask")
        XCTAssertEqual(Files.listDirectory(dir).sorted(), ["boardwalk.prom"], "no temporary file left behind")
        XCTAssertEqual(readFile(writer.path), "# HELP a x\n# TYPE a gauge\na 1\n")
    }

    func testAnUnwritableDirectoryIsOneLogLineAndTheKioskRunsOn() throws {
        let base = try makeTemporaryDirectory(self)
        try writeFile(base + "/blocker", "a file where the directory should be\n")
        let dir = base + "/blocker/metrics"
        var made: HeadlessRunner?
        var lines = try capturingLog {
            let (runner, _) = try self.runner(metricsDir: dir)
            for minute in 0..<5 { runner.kiosk.tick(now: runner.now + Double(minute) * 60) }
            runner.advance(1)
            made = runner
        }
        let runner = try XCTUnwrap(made)
        let k = runner.kiosk
        let warnings = lines.filter { $0.contains("metrics:") }
        XCTAssertEqual(warnings.count, 1, "\(lines)")
        XCTAssertTrue(warnings[0].contains(dir + "/boardwalk.prom") && warnings[0].contains("Not a directory"), warnings[0])
        let drawn = runner.framesDrawn
        runner.advance(1)
        XCTAssertGreaterThan(runner.framesDrawn, drawn, "the kiosk draws on")
        // The directory appears: written at the next minute, and said once.
        unlink(base + "/blocker")
        try Files.makeDirectories(dir)
        lines = capturingLog { k.tick(now: runner.now + 400) }
        XCTAssertEqual(lines.filter { $0.contains("metrics: writing") }.count, 1, "\(lines)")
        XCTAssertNotNil(readFile(dir + "/boardwalk.prom"))
    }

    func testTheSettings() {
        var s = Settings()
        var asked: [String] = []
        let made = { (path: String) -> Bool in asked.append(path); return true }
        XCTAssertNil(s.metrics.textfileDirectory(isDirectory: { _ in false }), "auto: off without the directory")
        XCTAssertEqual(s.metrics.textfileDirectory(isDirectory: made), "/run/boardwalk-metrics",
                       "auto: the directory the kiosk's tmpfiles make, exporter or not (the fleet reads it too)")
        XCTAssertEqual(asked, ["/run/boardwalk-metrics"])
        XCTAssertNil(s.apply(key: "metrics.exporter_port", value: "9100"))
        XCTAssertNil(s.metrics.textfileDirectory(isDirectory: { _ in false }), "the exporter's port is the image builder's")
        XCTAssertNil(s.apply(key: "metrics.textfile_dir", value: "/var/lib/node-exporter/"))
        XCTAssertEqual(s.metrics.textfileDirectory(isDirectory: { _ in false }), "/var/lib/node-exporter",
                       "a named directory is written (a missing one is a warning: testAnUnwritableDirectoryIsOneLogLineAndTheKioskRunsOn)")
        XCTAssertNil(s.apply(key: "metrics.textfile_dir", value: "none"))
        XCTAssertNil(s.metrics.textfileDirectory(isDirectory: made))
        XCTAssertNotNil(s.apply(key: "metrics.textfile_dir", value: "relative/dir"))
        XCTAssertNotNil(s.apply(key: "metrics.exporter_port", value: "70000"))
        XCTAssertEqual(s.value(for: "metrics.exporter_port"), "9100")
    }

    func testTheActivityFileFollowsTheCabinetAtOnce() throws {
        let dir = try makeTemporaryDirectory(self)
        let (runner, _) = try runner(metricsDir: dir)
        let path = dir + "/boardwalk-activity.prom"
        func state() throws -> String? {
            try ParsedMetrics(try XCTUnwrap(readFile(path))).samples.keys.first { $0.hasPrefix("boardwalk_activity{") }
        }
        XCTAssertEqual(try state(), "boardwalk_activity{state=play}", "just started: someone may be there")
        runner.advance(30, step: 1)
        XCTAssertEqual(try state(), "boardwalk_activity{state=play}")
        runner.advance(40, step: 1)
        XCTAssertEqual(try state(), "boardwalk_activity{state=idle}", "the attract mode (after a minute untouched by default)")
        // The first touch only wakes the attract mode (or the panel); the next one is a player's.
        runner.tap([(100, 100)])
        runner.tap([(100, 100)])
        XCTAssertEqual(try state(), "boardwalk_activity{state=play}", "touched: at once, without waiting for the minute's write")
        XCTAssertEqual(Files.listDirectory(dir).sorted(), ["boardwalk-activity.prom", "boardwalk.prom"])
    }

    func testWithoutTheAttractModeTwoUntouchedMinutesAreIdle() throws {
        let dir = try makeTemporaryDirectory(self)
        let (runner, _) = try makeRunner(self, configure: { s in
            s.metrics.textfileDir = dir
            s.kiosk.menuToAttractSeconds = 0
        })
        let path = dir + "/boardwalk-activity.prom"
        runner.advance(110, step: 1)
        XCTAssertEqual(readFile(path)?.contains("state=\"play\""), true)
        runner.advance(15, step: 1)
        XCTAssertEqual(readFile(path)?.contains("state=\"idle\""), true, "the untouched menu, with no attract mode")
    }
}
