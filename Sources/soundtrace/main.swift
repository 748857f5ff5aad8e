import Glibc
import SoundtraceDaemon
import SoundtraceTools

// One binary for both programs in the package: /usr/bin/soundtraced is a link to it, and the name it
// was started under picks the program. Two static binaries would each carry their own copy of the
// Swift runtime (about 8 MB apiece); docs/DEPLOY.md.
if let program = CommandLine.arguments.first, DaemonProcess.isInvoked(as: program) {
    exit(DaemonProcess.main(Array(CommandLine.arguments.dropFirst())))
}
let rawArguments = (1..<Int(CommandLine.argc)).map { index in
    CommandLine.unsafeArgv[index].map { Array(UnsafeBufferPointer(start: $0, count: strlen($0))).map { UInt8(bitPattern: $0) } } ?? []
}
exit(SoundtraceCLI.run(rawArguments: rawArguments, console: .standard()).rawValue)
