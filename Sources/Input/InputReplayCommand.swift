#if canImport(Glibc)
import Glibc
#endif

/// `boardwalk input-replay DEVICE.desc RECORDING.events [--size WxH] [--rotation R]
/// [--calibration a,b,c,d,e,f]`: replays an evemu recording through the kiosk's decoder and
/// gesture recognizer and prints one JSON line per contact and per gesture.
/// `arguments` are those after "input-replay". Returns the process exit status.
public func inputReplayMain(_ arguments: [String]) -> Int32 {
    let usage = """
        usage: boardwalk input-replay DEVICE.desc RECORDING.events [--size WxH] [--rotation 0|90|180|270]
                                      [--calibration a,b,c,d,e,f] [--swap-axes] [--invert-x] [--invert-y]
               boardwalk input-replay RECORDING   (EVEMU 1.1: description and events in one file)
          --size is the display mode before rotation (default 1280x800, the virtual board's).
        """
    func fail(_ message: String, status: Int32 = 2) -> Int32 {
        var text = "input-replay: \(message)\n"
        if status == 2 { text += usage + "\n" }
        _ = text.withCString { write(2, $0, strlen($0)) }
        return status
    }
    var files: [String] = []
    var width = 1280, height = 800
    var rotation = DisplayRotation.none
    var calibration = CalibrationMatrix.identity
    var swapAxes = false, invertX = false, invertY = false
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        switch argument {
        case "--size":
            let parts = value()?.split(separator: "x") ?? []
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  w > 0, h > 0, w <= 16384, h <= 16384 else {
                return fail("--size needs WIDTHxHEIGHT, e.g. 1280x800")
            }
            (width, height) = (w, h)
        case "--rotation":
            guard let text = value(), let degrees = Int(text), let r = DisplayRotation(degrees: degrees) else {
                return fail("--rotation needs 0, 90, 180 or 270")
            }
            rotation = r
        case "--calibration":
            guard let text = value(), let matrix = CalibrationMatrix(parsing: text) else {
                return fail("--calibration needs six numbers a,b,c,d,e,f (libinput's matrix)")
            }
            calibration = matrix
        case "--swap-axes": swapAxes = true
        case "--invert-x": invertX = true
        case "--invert-y": invertY = true
        case "-h", "--help":
            print(usage)
            return 0
        default:
            if argument.hasPrefix("-") { return fail("unknown option \(argument)") }
            files.append(argument)
        }
        index += 1
    }
    guard files.count == 1 || files.count == 2 else {
        return fail("give a device description and a recording (or one EVEMU 1.1 file)")
    }
    let transform = TouchTransform(displayWidth: width, displayHeight: height, rotation: rotation,
                                   calibration: calibration, swapAxes: swapAxes,
                                   invertX: invertX, invertY: invertY)
    do {
        let recording: EvemuRecording
        if files.count == 2 {
            recording = try EvemuRecording.load(description: files[0], events: files[1])
        } else {
            recording = try EvemuRecording.load(files[0])
            guard recording.hasDescription else {
                return fail("\(files[0]) has no device description; give the .desc file first", status: 1)
            }
        }
        let replay = try InputReplay(recording: recording, transform: transform)
        for line in replay.jsonLines { print(line) }
        return 0
    } catch {
        return fail("\(error)", status: 1)
    }
}
