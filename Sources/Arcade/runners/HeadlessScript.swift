import Platform

/// A timeline of input for the headless screen, one command per line:
///
///     # comments and blank lines are ignored
///     wait 1.5                      advance time (seconds)
///     tap 400 240                   a quick tap at a point (logical points)
///     tap 200 240 600 240           two fingers tapping at once
///     hold 30 30 1.2                finger down, held 1.2 s, lifted
///     swipe 100 240 500 240 0.2     a swipe from, to, over a duration
///     key left                      a key press and release (up down left right confirm back service start)
///     shot menu                     write DIR/menu.png
///
/// Points are the scene's logical points (pixels at 800x480).
public struct HeadlessScript: Equatable, Sendable {
    public enum Command: Equatable, Sendable {
        case wait(Double)
        case tap([(Double, Double)])
        case hold(x: Double, y: Double, seconds: Double)
        case swipe(fromX: Double, fromY: Double, toX: Double, toY: Double, seconds: Double)
        case key(String)
        case shot(String)

        public static func == (a: Command, b: Command) -> Bool {
            switch (a, b) {
            case (.wait(let x), .wait(let y)): return x == y
            case (.tap(let p), .tap(let q)): return p.count == q.count && zip(p, q).allSatisfy { $0 == $1 }
            case (.hold(let a1, let a2, let a3), .hold(let b1, let b2, let b3)): return a1 == b1 && a2 == b2 && a3 == b3
            case (.swipe(let a1, let a2, let a3, let a4, let a5), .swipe(let b1, let b2, let b3, let b4, let b5)):
                return a1 == b1 && a2 == b2 && a3 == b3 && a4 == b4 && a5 == b5
            case (.key(let x), .key(let y)): return x == y
            case (.shot(let x), .shot(let y)): return x == y
            default: return false
            }
        }
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let file: String
        public let line: Int
        public let problem: String
        public var description: String { "\(file):\(line): \(problem)" }
    }

    public static let keyNames = ["up", "down", "left", "right", "confirm", "back", "service", "start"]

    public var commands: [(line: Int, command: Command)]

    public static func == (a: HeadlessScript, b: HeadlessScript) -> Bool {
        a.commands.count == b.commands.count && zip(a.commands, b.commands).allSatisfy { $0.line == $1.line && $0.command == $1.command }
    }

    public init(text: String, file: String = "script") throws(ParseError) {
        commands = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let verb = words.first else { continue }
            let args = Array(words.dropFirst())
            func numbers(_ counts: [Int]) throws(ParseError) -> [Double] {
                guard counts.contains(args.count) else {
                    throw ParseError(file: file, line: lineNumber,
                                     problem: "'\(verb)' takes \(counts.map(String.init).joined(separator: " or ")) numbers, got \(args.count)")
                }
                var out: [Double] = []
                for a in args {
                    guard let v = Double(a), v.isFinite else {
                        throw ParseError(file: file, line: lineNumber, problem: "'\(a)' is not a number")
                    }
                    out.append(v)
                }
                return out
            }
            let command: Command
            switch verb {
            case "wait":
                let n = try numbers([1])
                guard n[0] >= 0 else { throw ParseError(file: file, line: lineNumber, problem: "wait needs a time >= 0") }
                command = .wait(n[0])
            case "tap":
                let n = try numbers([2, 4, 6, 8, 10])
                command = .tap(stride(from: 0, to: n.count, by: 2).map { (n[$0], n[$0 + 1]) })
            case "hold":
                let n = try numbers([2, 3])
                command = .hold(x: n[0], y: n[1], seconds: n.count > 2 ? n[2] : 1.0)
            case "swipe":
                let n = try numbers([4, 5])
                command = .swipe(fromX: n[0], fromY: n[1], toX: n[2], toY: n[3], seconds: n.count > 4 ? n[4] : 0.15)
            case "key":
                guard args.count == 1, HeadlessScript.keyNames.contains(args[0]) else {
                    throw ParseError(file: file, line: lineNumber, problem: "key takes one of: \(HeadlessScript.keyNames.joined(separator: " "))")
                }
                command = .key(args[0])
            case "shot":
                guard args.count == 1, !args[0].contains("/") else {
                    throw ParseError(file: file, line: lineNumber, problem: "shot takes one name (no '/')")
                }
                command = .shot(args[0])
            default:
                throw ParseError(file: file, line: lineNumber, problem: "unknown command '\(verb)'")
            }
            commands.append((lineNumber, command))
        }
    }
}
