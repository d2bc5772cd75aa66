import Platform

/// A line of an evemu file that could not be read: names the file and the line.
public struct EvemuError: Error, CustomStringConvertible, Equatable, Sendable {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}

/// An evemu recording (evemu-record / evemu-describe output), read without libevemu.
///
/// Forms read: EVEMU 1.1, one file holding the description (`N: I: P: B: A:` with five
/// fields per `A:` line) followed by `E:` events; and EVEMU 1.2/1.3, where `A:` lines have
/// six fields (the resolution) and the description and events usually come as separate
/// `.desc` and `.events` files (an `.events` file may repeat the description). `#` starts a
/// comment, also after an event.
public struct EvemuRecording: Sendable {
    public var name: String = ""
    public var bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0
    /// Event type -> codes set in the `B:` bitmasks.
    public var bits: [UInt16: Set<UInt16>] = [:]
    public var properties: Set<UInt16> = []
    public var axes: [UInt16: AxisInfo] = [:]
    public var events: [RawInputEvent] = []
    /// True when the text had any description lines.
    public var hasDescription: Bool = false

    public init() {}

    public static func load(_ path: String) throws -> EvemuRecording {
        let text: String
        do {
            text = try Files.readText(path)
        } catch {
            throw EvemuError(file: path, line: 0, message: "cannot read: \(error)")
        }
        return try parse(text, file: path)
    }

    /// Reads a description file and an events file (the 1.3 form).
    public static func load(description: String, events: String) throws -> EvemuRecording {
        var device = try load(description)
        guard device.hasDescription else {
            throw EvemuError(file: description, line: 0, message: "no device description (N:/B:/A: lines)")
        }
        let recording = try load(events)
        device.events = recording.events
        return device
    }

    public static func parse(_ text: String, file: String) throws -> EvemuRecording {
        var recording = EvemuRecording()
        // B: lines of one type continue each other's bitmask, eight bytes a line.
        var bitBytes: [UInt16: [UInt8]] = [:]
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.isEmpty { continue }
            func fail(_ message: String) -> EvemuError {
                EvemuError(file: file, line: lineNumber, message: "\(message): \"\(rawLine)\"")
            }
            guard trimmed.count >= 2, trimmed.dropFirst().first == ":" else {
                throw fail("expected a line starting with N:, I:, P:, B:, A: or E:")
            }
            let tag = trimmed.first!
            let rest = trimmed.dropFirst(2)
            let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch tag {
            case "N":
                recording.name = String(rest.drop(while: { $0 == " " || $0 == "\t" }))
                recording.hasDescription = true
            case "I":
                guard fields.count == 4, let values = hex16(fields) else { throw fail("I: needs four hex numbers") }
                (recording.bus, recording.vendor, recording.product, recording.version) =
                    (values[0], values[1], values[2], values[3])
                recording.hasDescription = true
            case "P":
                guard !fields.isEmpty else { throw fail("P: needs bytes") }
                var bytes: [UInt8] = []
                for field in fields {
                    guard let byte = UInt8(field, radix: 16) else { throw fail("P: byte is not hex") }
                    bytes.append(byte)
                }
                let base = recording.propertyBytesSeen
                for (index, byte) in bytes.enumerated() {
                    for bit in 0..<8 where byte & (1 << bit) != 0 {
                        recording.properties.insert(UInt16((base + index) * 8 + bit))
                    }
                }
                recording.propertyBytesSeen += bytes.count
                recording.hasDescription = true
            case "B":
                guard fields.count >= 2, let type = UInt16(fields[0], radix: 16), type <= 0x1f else {
                    throw fail("B: needs an event type and bytes")
                }
                for field in fields.dropFirst() {
                    guard let byte = UInt8(field, radix: 16) else { throw fail("B: byte is not hex") }
                    bitBytes[type, default: []].append(byte)
                }
                recording.hasDescription = true
            case "A":
                guard fields.count == 5 || fields.count == 6 else {
                    throw fail("A: needs code, min, max, fuzz, flat and (1.2+) resolution")
                }
                guard let code = UInt16(fields[0], radix: 16), code <= 0x3f else {
                    throw fail("A: axis code is not a hex number up to 3f")
                }
                var numbers: [Int32] = []
                for field in fields.dropFirst() {
                    guard let number = Int32(field) else { throw fail("A: \(field) is not a number") }
                    numbers.append(number)
                }
                recording.axes[code] = AxisInfo(minimum: numbers[0], maximum: numbers[1],
                                                fuzz: numbers[2], flat: numbers[3],
                                                resolution: numbers.count > 4 ? numbers[4] : 0)
                recording.hasDescription = true
            case "L", "S":
                // LED and switch states: nothing a touch or key decoder needs.
                recording.hasDescription = true
            case "E":
                guard fields.count == 4 else { throw fail("E: needs time, type, code and value") }
                guard let time = parseTime(fields[0]) else { throw fail("E: time is not seconds.microseconds") }
                guard let type = UInt16(fields[1], radix: 16), let code = UInt16(fields[2], radix: 16) else {
                    throw fail("E: type and code must be hex")
                }
                guard let value = Int32(fields[3]) else { throw fail("E: value is not a number") }
                recording.events.append(RawInputEvent(time: time, type: type, code: code, value: value))
            default:
                throw fail("unknown line type \(tag):")
            }
        }
        for (type, bytes) in bitBytes {
            var codes = Set<UInt16>()
            for (index, byte) in bytes.enumerated() where byte != 0 {
                for bit in 0..<8 where byte & (1 << bit) != 0 {
                    let code = index * 8 + bit
                    if code <= Int(UInt16.max) { codes.insert(UInt16(code)) }
                }
            }
            recording.bits[type] = codes
        }
        return recording
    }

    private var propertyBytesSeen = 0

    /// The device as a capability set, to classify like a live device.
    public var capabilities: DeviceCapabilities {
        // Axes count when the ABS bitmask lists them too (if the file has one).
        let absolute = axes.filter { bits[EV.abs]?.contains($0.key) ?? true }
        return DeviceCapabilities(name: name, keys: bits[EV.key] ?? [], absolute: absolute,
                                  relative: bits[EV.rel] ?? [], switches: bits[EV.sw] ?? [],
                                  properties: properties)
    }

    private static func hex16(_ fields: [Substring]) -> [UInt16]? {
        var values: [UInt16] = []
        for field in fields {
            guard let value = UInt16(field, radix: 16) else { return nil }
            values.append(value)
        }
        return values
    }

    /// "1330495931.101111" -> seconds; the integer and fraction parts are kept apart so
    /// epoch-sized times keep their microseconds.
    private static func parseTime(_ field: Substring) -> Double? {
        let parts = field.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let seconds = Int64(parts[0]), seconds >= 0 else { return nil }
        var fraction = 0.0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int64(digits) else { return nil }
            var scale = 1.0
            for _ in 0..<digits.count { scale *= 10 }
            fraction = Double(value) / scale
        }
        return Double(seconds) + fraction
    }
}
