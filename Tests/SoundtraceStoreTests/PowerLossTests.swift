import Foundation
import Testing

/// Kills a writing process with SIGKILL at random moments, many times, and checks after each kill
/// that the file is sound and holds every event the writer had acknowledged.
///
/// This proves SQLite's WAL journaling with synchronous=FULL against process death at any
/// instruction (mid-transaction, mid-fsync, mid-checkpoint, mid-open or mid-migration). It does not
/// cut the kernel's power: data in the page cache survives a killed process, so it cannot prove that
/// fsync reaches the SD card's flash (see docs/HISTORY.md).
@Suite struct PowerLossTests {
    static let seed: UInt64 = 0x5EED_0004
    static let kills = 50

    @Test func everyAcknowledgedEventSurvivesSIGKILLAtRandomMoments() throws {
        let executable = try WriterProcess.executable()
        var random = SeededGenerator(seed: Self.seed)
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let stderrPath = directory + "/writer-stderr.txt"
            var acknowledged: [String] = []
            for round in 1...Self.kills {
                let context = "seed \(Self.seed), round \(round)"
                let writer = try WriterProcess(executable: executable, database: path, prefix: "r\(round)", stderrPath: stderrPath)
                // Wait for a random number of acknowledged events (0 = kill during start-up, open or
                // migration), then let a random few hundred microseconds pass so that the kill lands at
                // a different point of the next transaction each time. This is not synchronization:
                // the kill is meant to come at an arbitrary moment.
                let target = Int.random(in: 0...15, using: &random)
                let stillRunning = writer.waitForLines(target)
                usleep(UInt32.random(in: 0...800, using: &random))
                writer.kill()
                let errors = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                #expect(stillRunning, "\(context): the writer exited on its own: \(errors)")
                #expect(errors.isEmpty, "\(context): the writer reported: \(errors)")
                acknowledged += writer.lines

                // Check the file as the crash left it, with a connection that is not the code under test.
                let raw = try RawDatabase(path)
                defer { raw.close() }
                #expect(try raw.texts("PRAGMA integrity_check") == ["ok"], "\(context)")
                let stored = Set(try raw.texts("SELECT session_id FROM event"))
                let missing = acknowledged.filter { !stored.contains($0) }
                #expect(missing.isEmpty, "\(context): acknowledged but lost: \(missing)")
                // Each event's transaction also wrote three metadata rows: none may be half there.
                #expect(
                    try raw.integer(
                        """
                        SELECT count(*) FROM event
                        WHERE (SELECT count(*) FROM event_metadata WHERE event_id = event.id) != 3
                        """) == 0, "\(context)")
                if missing.isEmpty == false || stillRunning == false { break }
            }
            #expect(acknowledged.count >= Self.kills, "too few events were written to mean anything")
            #expect(try directoryListing(directory).allSatisfy { !$0.contains("corrupt") && !$0.contains("foreign") })
        }
    }
}
