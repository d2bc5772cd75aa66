import Arcade
import Display
#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "display-test" { exit(displayTestMain(Array(arguments.dropFirst()))) }
