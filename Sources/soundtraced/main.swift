import Glibc
import SoundtraceDaemon

exit(DaemonProcess.main(Array(CommandLine.arguments.dropFirst())))
