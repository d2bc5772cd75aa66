import Platform
import ScreenGeometry

#if canImport(Glibc)
import Glibc
#endif

/// The screen options both input commands take.
struct ScreenOptions {
    var width = 1280, height = 800
    var rotation = Rotation.deg0
    var calibration = CalibrationMatrix.identity
    var swapAxes = false, invertX = false, invertY = false

    static let usage = """
        [--size WxH] [--rotation 0|90|180|270] [--calibration a,b,c,d,e,f]
                                      [--swap-axes] [--invert-x] [--invert-y]
        """

    var transform: TouchTransform {
        TouchTransform(displayWidth: width, displayHeight: height, rotation: rotation,
                       calibration: calibration, swapAxes: swapAxes, invertX: invertX, invertY: invertY)
    }

    /// Consumes the option at `arguments[index]` if it is one of ours (advancing past its
    /// value). Returns false when it is not ours; throws a usage message when its value is bad.
    mutating func parse(_ arguments: [String], at index: inout Int) throws(UsageError) -> Bool {
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        switch arguments[index] {
        case "--size":
            let parts = value()?.split(separator: "x") ?? []
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  w > 0, h > 0, w <= 16384, h <= 16384 else {
                throw UsageError("--size needs WIDTHxHEIGHT, e.g. 1280x800")
            }
            (width, height) = (w, h)
        case "--rotation":
            guard let text = value(), let degrees = Int(text), let r = Rotation(rawValue: degrees) else {
                throw UsageError("--rotation needs 0, 90, 180 or 270")
            }
            rotation = r
        case "--calibration":
            guard let text = value(), let matrix = CalibrationMatrix(parsing: text) else {
                throw UsageError("--calibration needs six numbers a,b,c,d,e,f (libinput's matrix)")
            }
            calibration = matrix
        case "--swap-axes": swapAxes = true
        case "--invert-x": invertX = true
        case "--invert-y": invertY = true
        default: return false
        }
        return true
    }
}

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Unbuffered, so lines reach a pipe (or the journal) when they happen.
func writeOut(_ text: String, to fd: FileDescriptor = .standardOutput) {
    // A closed pipe or a full disk loses the line; nothing better to tell it to.
    try? fd.writeAll(Array(text.utf8))
}

/// `boardwalk input-replay DEVICE.desc RECORDING.events [--size WxH] [--rotation R]
/// [--calibration a,b,c,d,e,f]`: replays an evemu recording through the kiosk's decoder and
/// gesture recognizer and prints one JSON line per contact and per gesture.
/// `arguments` are those after "input-replay". Returns the process exit status.
public func inputReplayMain(_ arguments: [String]) -> Int32 {
    let usage = """
        usage: boardwalk input-replay DEVICE.desc RECORDING.events \(ScreenOptions.usage)
               boardwalk input-replay RECORDING   (EVEMU 1.1: description and events in one file)
          --size is the display mode before rotation (default 1280x800, the virtual board's).
        """
    func fail(_ message: String, status: Int32 = 2) -> Int32 {
        writeOut("input-replay: \(message)\n" + (status == 2 ? usage + "\n" : ""), to: .standardError)
        return status
    }
    var files: [String] = []
    var screen = ScreenOptions()
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
        if argument == "-h" || argument == "--help" {
            writeOut(usage + "\n")
            return 0
        }
        if argument.hasPrefix("-") { return fail("unknown option \(argument)") }
        files.append(argument)
        index += 1
    }
    guard files.count == 1 || files.count == 2 else {
        return fail("give a device description and a recording (or one EVEMU 1.1 file)")
    }
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
        let replay = try InputReplay(recording: recording, transform: screen.transform)
        writeOut(replay.jsonLines.map { $0 + "\n" }.joined())
        return 0
    } catch {
        return fail("\(error)", status: 1)
    }
}
