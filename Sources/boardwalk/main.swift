import Arcade
import Input
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "input-replay" {
    exit(inputReplayMain(Array(arguments.dropFirst(2))))
}
if arguments.count > 1 && arguments[1] == "input-monitor" {
    exit(inputMonitorMain(Array(arguments.dropFirst(2))))
}
