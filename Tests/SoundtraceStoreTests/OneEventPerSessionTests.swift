import Foundation
import SoundtraceStore
import Testing

/// "Exactly one event per session" under concurrent attempts from separate connections and processes.
@Suite struct OneEventPerSessionTests {
    /// Lets every thread finish opening its store before any of them writes, so the writes collide.
    final class StartLine: @unchecked Sendable {
        private let condition = NSCondition()
        private var waiting: Int
        init(runners: Int) { waiting = runners }

        func arriveAndWait() {
            condition.lock()
            waiting -= 1
            if waiting == 0 { condition.broadcast() }
            while waiting > 0 { condition.wait() }
            condition.unlock()
        }
    }

    /// Results gathered from the racing threads.
    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Result<RecordOutcome, HistoryError>] = []
        func append(_ item: Result<RecordOutcome, HistoryError>) { lock.withLock { items.append(item) } }
        var all: [Result<RecordOutcome, HistoryError>] { lock.withLock { items } }
    }

    @Test func racingThreadsOnSeparateConnectionsStoreOneEventPerSession() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            try Fixture.open(path).close()  // create and migrate once; the race is about events, not set-up
            let threads = 6
            for round in 1...12 {
                let session = "race-\(round)"
                let startLine = StartLine(runners: threads)
                let outcomes = Outcomes()
                let done = DispatchGroup()
                for runner in 0..<threads {
                    done.enter()
                    Thread.detachNewThread {
                        defer { done.leave() }
                        // Each thread has its own connection, as separate daemons or tools would.
                        let store: HistoryStore
                        do { store = try Fixture.open(path) } catch {
                            outcomes.append(.failure(error as? HistoryError ?? .closed(path: path)))
                            startLine.arriveAndWait()
                            return
                        }
                        startLine.arriveAndWait()
                        outcomes.append(
                            Result { () throws(HistoryError) in
                                try store.recordMatch(Fixture.recognition(session: session, reference: "runner-\(runner)"))
                            })
                        store.close()
                    }
                }
                done.wait()
                let results = outcomes.all
                let successes = results.compactMap { try? $0.get() }
                #expect(successes.count == threads, "failures: \(results.filter { (try? $0.get()) == nil })")
                let recorded = successes.filter { if case .recorded = $0 { true } else { false } }
                #expect(recorded.count == 1, "round \(round): \(successes)")
                #expect(Set(successes.map(\.eventId)).count == 1, "round \(round): \(successes)")
            }
            let raw = try RawDatabase(path)
            defer { raw.close() }
            #expect(try raw.integer("SELECT count(*) FROM event") == 12)
            #expect(try raw.integer("SELECT count(DISTINCT session_id) FROM event") == 12)
        }
    }

    @Test func racingWriterProcessesStoreOneEventPerSession() throws {
        let executable = try WriterProcess.executable()
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            try Fixture.open(path).close()
            // Three processes record the same session ids s-1, s-2, … at the same time.
            let writers = try (0..<3).map { _ in
                try WriterProcess(executable: executable, database: path, prefix: "s", stderrPath: directory + "/stderr.txt")
            }
            for writer in writers {
                #expect(
                    writer.waitForLines(40),
                    "a writer stopped early: \((try? String(contentsOfFile: directory + "/stderr.txt", encoding: .utf8)) ?? "")")
            }
            writers.forEach { $0.kill() }
            let raw = try RawDatabase(path)
            defer { raw.close() }
            #expect(try raw.texts("PRAGMA integrity_check") == ["ok"])
            #expect(try raw.integer("SELECT count(*) FROM event") == raw.integer("SELECT count(DISTINCT session_id) FROM event"))
            let stored = Set(try raw.texts("SELECT session_id FROM event"))
            for writer in writers {
                #expect(Set(writer.lines).isSubset(of: stored))
            }
        }
    }
}
