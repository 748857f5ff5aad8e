import CLinux
import Glibc
import SoundtraceClock
import SoundtraceFingerprint
import SoundtracePlatform

/// The content hash check that start-up and reloads leave out (they check the structure only, so
/// that their time does not grow with the catalog's size): the whole file hashed once after
/// ready, on a thread of its own at the lowest CPU priority and in the idle I/O class, so that a
/// `listen` meanwhile is not slowed down much (sessions may start before it ends). A mismatch makes
/// the catalog unusable as a failed load does, and after a reload puts the verified catalog it
/// replaced back in service (docs/CATALOG.md, "What is checked when").
enum CatalogContentCheck {
    /// Checks `catalog` in the background and tells `appliance` if its content is damaged; then
    /// drops the catalog's pages from the resident set (start-up read its header and directory).
    /// A check waiting while another runs is replaced by a newer one: a catalog reloaded again
    /// meanwhile is no longer served, so only the newest needs checking, and a burst of reloads
    /// starts one thread, not one each.
    static func start(_ catalog: Catalog, appliance: Appliance) {
        if !worker.submit((catalog, appliance)) {
            DaemonLog.warning("catalog content not verified: the system is out of threads (its structure was checked at load)")
        }
    }

    private static let worker = LatestOnlyWorker<(catalog: Catalog, appliance: Appliance)> { job in
        check(job.catalog, appliance: job.appliance)
    }

    private static func check(_ catalog: Catalog, appliance: Appliance) {
        // On Linux a PRIO_PROCESS priority of thread id 0 applies to the calling thread only;
        // the I/O class likewise. Both are hints: the check runs whether or not they take.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        _ = soundtrace_ioprio_idle_for_this_thread()
        let started = SystemClock.monotonicMilliseconds()
        do throws(CatalogError) {
            try catalog.verifyContent()
            let elapsed = SystemClock.monotonicMilliseconds() - started
            DaemonLog.info("catalog content verified against its SHA-256 in \(elapsed) ms")
            appliance.catalogContentVerified(catalog)
        } catch {
            appliance.catalogContentFailed(catalog, error)
        }
        catalog.releaseResidentPages()
    }
}
