/// The checks a catalog loaded with `CatalogFile.Check.structure` left for later, and giving back
/// the pages of its file that queries touched.
extension Catalog {
    /// Checks the whole content against the stored SHA-256, once: a catalog loaded in full, or
    /// found sound before, answers at once, a mismatch found before throws again, and a check that
    /// another thread is running is waited for (`ContentVerification`). A match must not be named
    /// from a catalog whose check has not passed; this is how a session's final verdict asks
    /// (while it listens, `contentVerified(waitingAtMost:)`).
    public func verifyContent() throws(CatalogError) {
        try verification.confirm { () throws(CatalogError) in try hashContent() }
    }

    /// For a session still listening: true when the content passed its check, its error when it
    /// failed, and false when the check has not ended after waiting at most `milliseconds` for the
    /// thread running it (or when none is). Never hashes on this thread, so that a session reading
    /// its device does not stop for longer than that.
    public func contentVerified(waitingAtMost milliseconds: Int) throws(CatalogError) -> Bool {
        try verification.confirmedWithin(milliseconds: milliseconds)
    }

    /// Whether the content is known to match its hash: nil until a check has ended.
    public var contentKnownSound: Bool? { verification.known }

    /// Hashes the file, reading it in chunks rather than through the mapping, so that its pages do
    /// not stay counted in the process's memory (and telling the kernel it may drop each chunk
    /// from its cache once hashed). A catalog decoded from memory was checked when decoded.
    private func hashContent() throws(CatalogError) {
        guard let file = content.file else { return }
        let digest: [UInt8]
        do {
            digest = try file.sha256(ofFirst: content.length)
        } catch {
            throw .cannotRead(path: content.path, reason: error.reason)
        }
        guard digest == content.digest else { throw .contentHashMismatch(path: content.path) }
    }

    /// Lets the kernel take the pages of the catalog's file out of this process's resident set:
    /// they stay in the page cache (clean file pages), and a later read maps them again. Idle, the
    /// daemon then holds none of the catalog; a session brings back only the index buckets, and
    /// the signatures and levels around its candidates, that it reads.
    public func releaseResidentPages() {
        content.file?.releaseResidentPages()
    }
}
