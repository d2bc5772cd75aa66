import Arcade
#if canImport(Glibc)
import Glibc
#endif

exit(Boardwalk.main(Array(CommandLine.arguments.dropFirst())))
