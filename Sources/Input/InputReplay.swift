/// Runs a recording through the kiosk's own decoder and gesture recognizer. Used by
/// `boardwalk input-replay` and by the tests, so both see exactly what the kiosk would.
public struct InputReplay: Sendable {
    public struct Contact: Sendable, Equatable {
        public enum End: String, Sendable { case up, cancel, open }
        public var id: Int
        public var downTime: Double
        public var upTime: Double?
        public var end: End
        public var firstX: Double, firstY: Double
        public var lastX: Double, lastY: Double
        public var moves: Int
    }

    public struct TimedGesture: Sendable, Equatable {
        public var time: Double
        public var gesture: Gesture
    }

    public enum Output: Sendable, Equatable {
        case contact(Contact)
        case gesture(TimedGesture)
        case key(KeyEvent)
    }

    /// In the order they completed (contacts at their end, gestures when they fired);
    /// contacts still down when the recording ends come last, marked `open`.
    public private(set) var outputs: [Output] = []
    /// Event times are reported relative to the first event of the recording.
    public private(set) var startTime: Double = 0
    public let deviceClass: DeviceClass

    public var contacts: [Contact] {
        outputs.compactMap { if case .contact(let c) = $0 { return c } else { return nil } }
    }
    public var gestures: [Gesture] {
        outputs.compactMap { if case .gesture(let g) = $0 { return g.gesture } else { return nil } }
    }
    public var keys: [KeyEvent] {
        outputs.compactMap { if case .key(let k) = $0 { return k } else { return nil } }
    }

    public struct NotAnInputDevice: Error, CustomStringConvertible {
        public var summary: String
        public var description: String { "the recorded device is \(summary)" }
    }

    /// - Parameter pixelsPerPoint: defaults to the UI's scale for the screen,
    ///   min(width/800, height/480).
    public init(recording: EvemuRecording, transform: TouchTransform,
                pixelsPerPoint: Double? = nil) throws {
        deviceClass = recording.capabilities.classify()
        let scale = pixelsPerPoint
            ?? min(Double(transform.screenWidth) / 800, Double(transform.screenHeight) / 480)
        var decoder: TouchDecoder?
        var keyMapper: KeyMapper?
        switch deviceClass {
        case .touch(let info):
            // Serial 0: the recording's contacts are numbered 1, 2, 3...
            decoder = TouchDecoder(info: info, transform: transform, deviceSerial: 0)
        case .keys(let info):
            keyMapper = KeyMapper(axes: info.axes)
        case .ignored(let reason):
            throw NotAnInputDevice(summary: "ignored by the kiosk: \(reason)")
        }
        var gestures = GestureRecognizer(pixelsPerPoint: scale)
        let start = recording.events.first?.time ?? 0
        startTime = start
        var live: [Int: Contact] = [:]
        var touches: [TouchEvent] = []
        var keys: [KeyEvent] = []

        func fireDue(upTo time: Double) {
            while let due = gestures.nextDeadline, due <= time {
                for gesture in gestures.update(now: due) {
                    outputs.append(.gesture(TimedGesture(time: due - start, gesture: gesture)))
                }
            }
        }

        for event in recording.events {
            fireDue(upTo: event.time)
            touches.removeAll(keepingCapacity: true)
            keys.removeAll(keepingCapacity: true)
            decoder?.handle(event, into: &touches)
            keyMapper?.handle(event, into: &keys)
            for key in keys {
                var relative = key
                relative.time -= start
                outputs.append(.key(relative))
            }
            for touch in touches {
                let time = touch.time - start
                switch touch.phase {
                case .down:
                    live[touch.id] = Contact(id: touch.id, downTime: time, upTime: nil, end: .open,
                                             firstX: touch.x, firstY: touch.y,
                                             lastX: touch.x, lastY: touch.y, moves: 0)
                case .move:
                    live[touch.id]?.lastX = touch.x
                    live[touch.id]?.lastY = touch.y
                    live[touch.id]?.moves += 1
                case .up, .cancel:
                    if var contact = live.removeValue(forKey: touch.id) {
                        contact.lastX = touch.x
                        contact.lastY = touch.y
                        contact.upTime = time
                        contact.end = touch.phase == .up ? .up : .cancel
                        outputs.append(.contact(contact))
                    }
                }
                for gesture in gestures.handle(touch) {
                    outputs.append(.gesture(TimedGesture(time: time, gesture: gesture)))
                }
            }
        }
        // A finger still down at the end may yet become a long press.
        fireDue(upTo: .infinity)
        for id in live.keys.sorted() {
            outputs.append(.contact(live[id]!))
        }
    }

    /// One JSON object per line, as `boardwalk input-replay` prints them.
    public var jsonLines: [String] {
        outputs.map { output in
            switch output {
            case .contact(let c):
                let up = c.upTime.map { json($0, 6) } ?? "null"
                return "{\"type\":\"contact\",\"id\":\(c.id),\"down\":\(json(c.downTime, 6)),\"up\":\(up),"
                    + "\"end\":\"\(c.end.rawValue)\",\"first\":[\(json(c.firstX, 2)),\(json(c.firstY, 2))],"
                    + "\"last\":[\(json(c.lastX, 2)),\(json(c.lastY, 2))],\"moves\":\(c.moves)}"
            case .gesture(let g):
                return gestureLine(g.gesture, time: g.time)
            case .key(let k):
                return "{\"type\":\"key\",\"time\":\(json(k.time, 6)),\"key\":\"\(k.key.rawValue)\","
                    + "\"pressed\":\(k.isPressed)}"
            }
        }
    }
}

/// A finite number rounded to `decimals` places in JSON's syntax, without exponents.
func json(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "null" }
    var scale: UInt64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * Double(scale)).rounded()
    guard abs(scaled) < 9e15 else { return "\(value)" }
    let magnitude = Int64(scaled).magnitude
    let sign = scaled < 0 ? "-" : ""
    let whole = magnitude / scale
    let fraction = magnitude % scale
    if fraction == 0 { return sign + String(whole) }
    var digits = String(fraction)
    digits = String(repeating: "0", count: decimals - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return sign + String(whole) + "." + digits
}
