import Platform

/// Timing figures for one measured thing: several runs, median and 99th percentile.
struct Timing {
    var samples: [Double]

    init(samples: [Double]) { self.samples = samples.sorted() }

    /// Runs `body` `count` times after `warmup` unmeasured runs; seconds per run.
    static func measure(count: Int, warmup: Int = 5, _ body: (Int) -> Void) -> Timing {
        for i in 0..<warmup { body(i) }
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for i in 0..<count {
            let start = monotonicSeconds()
            body(warmup + i)
            samples.append(monotonicSeconds() - start)
        }
        return Timing(samples: samples)
    }

    /// The bodies take turns, each timed once per turn, `count` turns after `warmup`: the
    /// two sides of a ratio see the same moments of a shared machine's load (timed one
    /// after the other, a phase that met a busy second moved the ratio by 30% and more).
    static func interleaved(count: Int, warmup: Int = 5, _ bodies: [(Int) -> Void]) -> [Timing] {
        for i in 0..<warmup { for body in bodies { body(i) } }
        var samples = [[Double]](repeating: [], count: bodies.count)
        for i in 0..<count {
            for (n, body) in bodies.enumerated() {
                let start = monotonicSeconds()
                body(warmup + i)
                samples[n].append(monotonicSeconds() - start)
            }
        }
        return samples.map { Timing(samples: $0) }
    }

    var median: Double { samples.isEmpty ? 0 : samples[samples.count / 2] }
    var p99: Double { samples.isEmpty ? 0 : samples[min(samples.count - 1, Int(Double(samples.count) * 0.99))] }
}

/// One line of the report: a name and figures, printed as text or as a JSON object.
struct ReportRow {
    var section: String
    var name: String
    var figures: [(String, Double)]
    var notes: [(String, String)] = []

    func text() -> String {
        let f = figures.map { "\($0.0)=\(format($0.1))" }.joined(separator: " ")
        let n = notes.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        return "\(section)/\(name): \(f)\(n.isEmpty ? "" : " " + n)"
    }

    /// One JSON object (RFC 8259: strings escaped, non-finite numbers as null).
    func json() -> String {
        var parts = ["\"section\":\(jsonString(section))", "\"name\":\(jsonString(name))"]
        for (k, v) in figures { parts.append("\(jsonString(k)):\(v.isFinite ? format(v) : "null")") }
        for (k, v) in notes { parts.append("\(jsonString(k)):\(jsonString(v))") }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

func format(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
    let scaled = (v * 10000).rounded() / 10000
    return String(scaled)
}
