// The power-loss test's child process: records events in a loop until it is killed, printing each
// session id on stdout only after recordMatch has returned (the event is durable by then). The test
// kills it with SIGKILL at random moments and checks that every printed id survived.
import Glibc
import SoundtraceClock
import SoundtraceStore

/// Writes a whole line to a file descriptor with write(2): unbuffered, so the parent sees it at once.
func emit(_ line: String, to descriptor: Int32) -> Bool {
    let bytes = Array((line + "\n").utf8)
    var sent = 0
    while sent < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + sent }, $0.count - sent) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        sent += count
    }
    return true
}

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3, !arguments[1].hasPrefix("-") else {
    _ = emit(
        "usage: soundtrace-store-writer DB_PATH [SESSION_PREFIX]\n"
            + "Records events with session ids PREFIX-1, PREFIX-2, … (PREFIX defaults to s) until killed,\n"
            + "printing each session id once its event is committed.", to: STDERR_FILENO)
    exit(2)
}
let prefix = arguments.count == 3 ? arguments[2] : "s"

let store: HistoryStore
do {
    store = try HistoryStore.open(path: arguments[1]).store
} catch {
    _ = emit("soundtrace-store-writer: \(error)", to: STDERR_FILENO)
    exit(1)
}

// A bound so that a writer orphaned by a crashed test cannot fill the disk; the test never gets near it.
let maximumEvents = 100_000
let hash = String(repeating: "ab", count: 32)
for number in 1...maximumEvents {
    let sessionId = "\(prefix)-\(number)"
    // Three metadata rows per event, so each commit spans two tables and the test can check that
    // no event survives without its metadata.
    let snapshot = ReferenceSnapshot(
        title: "Power loss \(number)", creator: "soundtrace-store-writer", license: "CC0-1.0",
        sourceFile: "audio/writer.wav",
        metadata: [
            .init(key: "number", value: "\(number)"), .init(key: "prefix", value: prefix), .init(key: "note", value: "written until killed")
        ],
        catalogHash: hash)
    let match = NewRecognition(
        sessionId: sessionId, referenceId: "writer-reference", matchedAt: SystemClock.wallMilliseconds(),
        offsetMilliseconds: Int64(number), score: number, snapshot: snapshot)
    do {
        _ = try store.recordMatch(match)
    } catch {
        _ = emit("soundtrace-store-writer: \(error)", to: STDERR_FILENO)
        exit(1)
    }
    guard emit(sessionId, to: STDOUT_FILENO) else { exit(1) }
}
store.close()
