import Glibc
import SoundtraceDaemon

exit(DaemonRuntime.run(Array(CommandLine.arguments.dropFirst())))
