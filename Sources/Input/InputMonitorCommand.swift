#if canImport(Glibc)
import Glibc
#endif
import Platform

/// `boardwalk input-monitor [--size WxH] [--rotation R] [--calibration ...] [--touch-device
/// MATCH] [--dir /dev/input] [--seconds N]`: runs the kiosk's InputSystem and gesture
/// recognizer on the live devices and prints one JSON line per device, touch, key and
/// gesture. For checking a panel, its calibration and hotplug on a board (or the virtual
/// board with evemu-play) without starting the kiosk.
public func inputMonitorMain(_ arguments: [String]) -> Int32 {
    let usage = """
        usage: boardwalk input-monitor \(ScreenOptions.usage)
                                      [--touch-device NAME|PATH] [--dir /dev/input] [--seconds N]
        """
    func fail(_ message: String) -> Int32 {
        writeOut("input-monitor: \(message)\n\(usage)\n", to: .standardError)
        return 2
    }
    var screen = ScreenOptions()
    var match: String?
    var directory = "/dev/input"
    var seconds: Double?
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        do {
            if try screen.parse(arguments, at: &index) {
                index += 1
                continue
            }
        } catch {
            return fail(error.message)
        }
        let value: String? = index + 1 < arguments.count ? arguments[index + 1] : nil
        switch argument {
        case "--touch-device":
            guard let value else { return fail("--touch-device needs a name or path") }
            match = value
        case "--dir":
            guard let value else { return fail("--dir needs a directory") }
            directory = value
        case "--seconds":
            guard let value, let number = Double(value), number > 0 else { return fail("--seconds needs a number") }
            seconds = number
        case "-h", "--help":
            writeOut(usage + "\n")
            return 0
        default:
            return fail("unknown argument \(argument)")
        }
        index += 2
    }

    let transform = screen.transform
    let system = InputSystem(config: InputConfig(transform: transform, touchDeviceMatch: match,
                                                 directory: directory))
    var gestures = GestureRecognizer(pixelsPerPoint: min(Double(transform.screenWidth) / 800,
                                                         Double(transform.screenHeight) / 480))
    let start = monotonicSeconds()
    var knownDevices: [String] = []
    func reportDevices() {
        let summaries = system.deviceSummaries.map {
            "{\"type\":\"device\",\"path\":\(jsonString($0.path)),\"name\":\(jsonString($0.name)),\"kind\":\(jsonString($0.kind))}"
        }
        if summaries != knownDevices {
            for line in summaries where !knownDevices.contains(line) { writeOut(line + "\n") }
            knownDevices = summaries
        }
    }
    func report(_ events: [InputEvent], now: Double) {
        var lines = ""
        for event in events {
            switch event {
            case .touch(let t):
                lines += "{\"type\":\"touch\",\"phase\":\"\(t.phase)\",\"id\":\(t.id),\"x\":\(json(t.x, 2)),"
                    + "\"y\":\(json(t.y, 2)),\"time\":\(json(t.time - start, 6))}\n"
                for gesture in gestures.handle(t) { lines += gestureLine(gesture, time: t.time - start) + "\n" }
            case .key(let k):
                lines += "{\"type\":\"key\",\"key\":\"\(k.key.rawValue)\",\"pressed\":\(k.isPressed),"
                    + "\"time\":\(json(k.time - start, 6))}\n"
            }
        }
        for gesture in gestures.update(now: now) { lines += gestureLine(gesture, time: now - start) + "\n" }
        if !lines.isEmpty { writeOut(lines) }
        reportDevices()
    }
    reportDevices()

    while true {
        let now = monotonicSeconds()
        if let seconds, now - start >= seconds { return 0 }
        var deadline = [system.nextDeadline, gestures.nextDeadline].compactMap { $0 }.min()
        if let seconds { deadline = min(deadline ?? .infinity, start + seconds) }
        let timeout = deadline.map { Int32(max(0, min(60_000, ($0 - now) * 1000)).rounded(.up)) } ?? -1
        var fds = system.pollDescriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
        let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
        if ready < 0 && errno != EINTR {
            writeOut("input-monitor: poll: \(String(cString: strerror(errno)))\n", to: .standardError)
            return 1
        }
        let after = monotonicSeconds()
        var events: [InputEvent] = []
        for entry in fds where entry.revents != 0 {
            events += system.handleReadable(fd: FileDescriptor(rawValue: entry.fd), now: after)
        }
        events += system.handleDeadline(now: after)
        report(events, now: after)
    }
}

func gestureLine(_ gesture: Gesture, time: Double) -> String {
    let head = "{\"type\":\"gesture\",\"time\":\(json(time, 6)),"
    switch gesture {
    case .tap(let x, let y, let id):
        return head + "\"gesture\":\"tap\",\"id\":\(id),\"x\":\(json(x, 2)),\"y\":\(json(y, 2))}"
    case .longPress(let x, let y, let id):
        return head + "\"gesture\":\"longpress\",\"id\":\(id),\"x\":\(json(x, 2)),\"y\":\(json(y, 2))}"
    case .swipe(let direction, let fromX, let fromY, let toX, let toY, let id):
        return head + "\"gesture\":\"swipe\",\"direction\":\"\(direction.rawValue)\",\"id\":\(id),"
            + "\"from\":[\(json(fromX, 2)),\(json(fromY, 2))],\"to\":[\(json(toX, 2)),\(json(toY, 2))]}"
    }
}
