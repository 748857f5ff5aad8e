import Dispatch
import Glibc
import Testing

@testable import SoundtraceFingerprint

/// A catalog's content check runs once, whoever asks first; everyone asking meanwhile waits for its
/// answer, which is kept (`ContentVerification`, `Catalog.verifyContent`).
@Suite struct ContentVerificationTests {
    final class Counter: @unchecked Sendable {
        // @unchecked: `value` is only changed under `mutex`.
        private var mutex = pthread_mutex_t()
        private(set) var value = 0
        init() { pthread_mutex_init(&mutex, nil) }
        func add() {
            pthread_mutex_lock(&mutex)
            value += 1
            pthread_mutex_unlock(&mutex)
        }
    }

    @Test func askedFromEightThreadsAtOnceTheCheckRunsOnceAndAllGetItsAnswer() {
        for damaged in [false, true] {
            let verification = ContentVerification(checked: false)
            let runs = Counter()
            let sound = Counter()
            let refused = Counter()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                do throws(CatalogError) {
                    try verification.confirm { () throws(CatalogError) in
                        runs.add()
                        usleep(50_000)  // long enough for the others to arrive while it runs
                        if damaged { throw .contentHashMismatch(path: "c") }
                    }
                    sound.add()
                } catch {
                    #expect(error == .contentHashMismatch(path: "c"))
                    refused.add()
                }
            }
            #expect(runs.value == 1, "one check, not one per thread")
            #expect(sound.value == (damaged ? 0 : 8) && refused.value == (damaged ? 8 : 0))
            #expect(verification.known == !damaged)
        }
    }

    @Test func aMismatchIsKeptButAFileThatCouldNotBeReadIsCheckedAgain() throws {
        let verification = ContentVerification(checked: false)
        #expect(verification.known == nil)
        #expect(throws: CatalogError.cannotRead(path: "c", reason: "Input/output error")) {
            try verification.confirm { () throws(CatalogError) in throw .cannotRead(path: "c", reason: "Input/output error") }
        }
        #expect(verification.known == nil, "not read is not known to be damaged")
        try verification.confirm {}
        #expect(verification.known == true)
        try verification.confirm { () throws(CatalogError) in Issue.record("a sound catalog is not checked again") }

        let damaged = ContentVerification(checked: false)
        #expect(throws: CatalogError.contentHashMismatch(path: "c")) {
            try damaged.confirm { () throws(CatalogError) in throw .contentHashMismatch(path: "c") }
        }
        #expect(throws: CatalogError.contentHashMismatch(path: "c")) {
            try damaged.confirm { () throws(CatalogError) in Issue.record("a damaged catalog is not checked again") }
        }
        #expect(damaged.known == false)
        #expect(ContentVerification(checked: true).known == true, "a catalog loaded in full was checked as it loaded")
    }
}

extension ContentVerificationTests {
    /// A session still listening waits only briefly for a check another thread runs, and never
    /// hashes the catalog itself: a check that ends within the wait answers it, a longer one does
    /// not, and with nobody checking it does not wait at all.
    @Test func aListeningSessionWaitsForAnotherThreadsCheckOnlyBriefly() throws {
        let idle = ContentVerification(checked: false)
        #expect(try idle.confirmedWithin(milliseconds: 10_000) == false, "nobody checks: no wait, no check run here")
        #expect(idle.known == nil)

        // Margins wide enough for a loaded machine: a 20 ms check against a 2 s wait, a 3 s check against a 200 ms one.
        for (checkMilliseconds, waitMilliseconds) in [(20, 2000), (3000, 200)] {
            let verification = ContentVerification(checked: false)
            let running = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                try? verification.confirm { () throws(CatalogError) in
                    running.signal()
                    usleep(UInt32(checkMilliseconds * 1000))
                }
                done.signal()
            }
            running.wait()
            let started = DispatchTime.now()
            let confirmed = try verification.confirmedWithin(milliseconds: waitMilliseconds)
            let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
            done.wait()
            if checkMilliseconds < waitMilliseconds {
                #expect(confirmed, "a check that ended within the wait answers it")
            } else {
                #expect(!confirmed && waited >= 190 && waited < 2500, "waited \(waited) ms for a 3 s check")
                #expect(verification.known == true)
            }
        }

        let damaged = ContentVerification(checked: false)
        #expect(throws: CatalogError.contentHashMismatch(path: "c")) {
            try damaged.confirm { () throws(CatalogError) in throw .contentHashMismatch(path: "c") }
        }
        #expect(throws: CatalogError.contentHashMismatch(path: "c")) { try damaged.confirmedWithin(milliseconds: 0) }
    }
}
