import Foundation
import Testing

@testable import SoundtraceDaemon

/// A burst of requests while the worker is busy leaves one waiting, the newest.
@Suite struct LatestOnlyWorkerTests {
    final class Log: @unchecked Sendable {
        // @unchecked: `done` is guarded by `condition`; `release` is a semaphore.
        let condition = NSCondition()
        var done: [Int] = []
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
    }

    @Test func aBurstWhileBusyRunsOnlyTheNewestAfterTheCurrentOne() {
        let log = Log()
        let worker = LatestOnlyWorker<Int> { item in
            if item == 1 {
                log.started.signal()
                _ = log.release.wait(timeout: .now() + 10)
            }
            log.condition.lock()
            log.done.append(item)
            log.condition.broadcast()
            log.condition.unlock()
        }
        #expect(worker.submit(1))
        #expect(log.started.wait(timeout: .now() + 10) == .success)
        for item in 2...6 { #expect(worker.submit(item)) }
        log.release.signal()
        log.condition.lock()
        let deadline = Date(timeIntervalSinceNow: 10)
        while log.done.count < 2 && log.condition.wait(until: deadline) {}
        // Nothing more arrives after the newest: the worker is idle again, and a new request runs.
        log.condition.unlock()
        #expect(worker.submit(7))
        log.condition.lock()
        while log.done.count < 3 && log.condition.wait(until: deadline) {}
        let done = log.done
        log.condition.unlock()
        #expect(done == [1, 6, 7])
    }
}
