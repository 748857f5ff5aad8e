import Glibc
import SoundtraceTools

exit(SoundtraceCLI.run(Array(CommandLine.arguments.dropFirst()), console: .standard()).rawValue)
