import Glibc

/// How much memory one listening session's vote counters may take: a quarter of the machine's.
/// They grow with the catalog (about 2 MB per hour of recordings), and a query of music that is
/// not in a big catalog touches nearly all of them; on a board without swap, a catalog that needs
/// more than the board has would get the daemon killed mid-session, again at every session after
/// systemd restarted it. Refusing such a catalog when it is loaded says so once, with the fix.
enum SessionMemoryBudget {
    /// A quarter of the physical memory (128 MB on a 512 MB board), or nil when the system does
    /// not say how much there is.
    static var bytes: Int? {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return nil }
        return pages / 4 * pageSize
    }
}
