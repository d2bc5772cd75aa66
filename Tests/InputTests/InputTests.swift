import XCTest
@testable import Input

/// Fixtures are found next to this file: no SwiftPM resources (their accessor needs Foundation).
func fixture(_ name: String) -> String {
    let here = "\(#filePath)"
    let directory = here[..<here.lastIndex(of: "/")!]
    return "\(directory)/Fixtures/\(name)"
}

/// Builds raw event streams the way a kernel driver would send them.
struct EventScript {
    var events: [RawInputEvent] = []
    var time: Double = 100

    mutating func abs(_ code: Int32, _ value: Int32) {
        events.append(RawInputEvent(time: time, type: EV.abs, code: UInt16(code), value: value))
    }
    mutating func key(_ code: Int32, _ value: Int32) {
        events.append(RawInputEvent(time: time, type: EV.key, code: UInt16(code), value: value))
    }
    mutating func syn(_ code: UInt16 = EV.synReport, advance: Double = 0.01) {
        events.append(RawInputEvent(time: time, type: EV.syn, code: code, value: 0))
        if code == EV.synReport { time += advance }
    }
    mutating func mtReport() { syn(EV.synMTReport) }
    mutating func dropped() { syn(EV.synDropped) }
}

extension TouchDecoder {
    mutating func feed(_ script: EventScript) -> [TouchEvent] {
        var output: [TouchEvent] = []
        for event in script.events { handle(event, into: &output) }
        return output
    }
}

let screen1280x800 = TouchTransform(displayWidth: 1280, displayHeight: 800)

/// A protocol-B panel whose axes are the 1280x800 screen's pixels.
func slotDecoder(slots: Int = 5, serial: Int = 1, transform: TouchTransform = screen1280x800) -> TouchDecoder {
    TouchDecoder(info: TouchDeviceInfo(touchProtocol: .slots(count: slots),
                                       x: AxisRange(minimum: 0, maximum: 1279),
                                       y: AxisRange(minimum: 0, maximum: 799)),
                 transform: transform, deviceSerial: serial)
}

func phases(_ events: [TouchEvent]) -> [TouchPhase] { events.map(\.phase) }
