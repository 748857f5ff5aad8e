/// The checks a catalog loaded with `CatalogFile.Check.structure` left for later, and giving back
/// the pages of its file that queries touched.
extension Catalog {
    /// Checks the whole content against the stored SHA-256, reading the file in chunks rather than
    /// through the mapping, so that its pages do not stay counted in the process's memory (and
    /// telling the kernel it may drop each chunk from its cache once hashed). A catalog decoded
    /// from memory was checked in full when decoded.
    public func verifyContent() throws(CatalogError) {
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
