/// Where a catalog file's sections lie, found by reading only their 8-byte headers (tag, length),
/// and the checksum of its structure: what start-up checks instead of hashing the whole file.
struct CatalogLayout {
    /// The sections in file order; each is a 4-byte tag, a 4-byte little-endian length, the body.
    enum Section: CaseIterable {
        case parameters, references, index, signatures, levels, structureChecksum, contentHash

        var tag: UInt32 {
            let text: String
            switch self {
            case .parameters: text = "PARM"
            case .references: text = "REFS"
            case .index: text = "INDX"
            case .signatures: text = "SIGN"
            case .levels: text = "LEVL"
            case .structureChecksum: text = "STRC"
            case .contentHash: text = "HASH"
            }
            return Array(text.utf8).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        }

        var name: String {
            switch self {
            case .parameters: "parameters section"
            case .references: "references section"
            case .index: "index section"
            case .signatures: "signatures section"
            case .levels: "levels section"
            case .structureChecksum: "structure checksum"
            case .contentHash: "content hash"
            }
        }
    }

    /// The index section starts with 8 bytes: four bit counts, then the number of entries.
    static let indexHeaderBytes = 8

    /// Each section's body.
    let bodies: [Section: Range<Int>]
    /// Where the content hash section starts: the content hash covers every byte before it.
    let contentEnd: Int
    /// Where the index directory ends: the structure checksum covers every byte before it.
    let directoryEnd: Int

    func body(_ section: Section) -> Range<Int> { bodies[section] ?? 0..<0 }

    /// Walks the section headers after the magic and version; a short file is reported as
    /// truncated, not as corrupt. Reads a few bytes per section, whatever the file's size.
    init(_ bytes: UnsafeRawBufferPointer, start: Int, path: String) throws(CatalogError) {
        func u32(at offset: Int) -> UInt32? {
            guard offset >= 0, offset <= bytes.count - 4 else { return nil }
            return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        var bodies: [Section: Range<Int>] = [:]
        var position = start
        var contentEnd = 0
        for section in Section.allCases {
            guard let tag = u32(at: position), let length = u32(at: position + 4) else {
                throw .truncated(path: path, section: section.name)
            }
            guard tag == section.tag else {
                throw .damaged(path: path, detail: "expected the \(section.name) at byte \(position)")
            }
            let body = (position + 8)..<(position + 8 + Int(length))
            guard body.upperBound <= bytes.count else { throw .truncated(path: path, section: section.name) }
            if section == .contentHash { contentEnd = position }
            bodies[section] = body
            position = body.upperBound
        }
        guard position == bytes.count else {
            throw .damaged(path: path, detail: "\(bytes.count - position) unexpected bytes after the content hash")
        }
        // The directory's size follows from its bit count, the index header's second byte.
        let index = bodies[.index] ?? 0..<0
        guard index.count >= Self.indexHeaderBytes else { throw .damaged(path: path, detail: "index section ends early") }
        let directoryBits = Int(bytes[index.lowerBound + 1])
        guard directoryBits >= 1, directoryBits <= 24 else {
            throw .damaged(path: path, detail: "index directory of \(directoryBits) bits")
        }
        let directoryEnd = index.lowerBound + Self.indexHeaderBytes + 4 * ((1 << directoryBits) + 1)
        guard directoryEnd <= index.upperBound else { throw .damaged(path: path, detail: "index section size does not match its counts") }
        self.bodies = bodies
        self.contentEnd = contentEnd
        self.directoryEnd = directoryEnd
    }

    /// The SHA-256 of everything a start-up check reads: the bytes from the magic to the end of
    /// the index directory (header, parameters, references, index header and directory), then the
    /// 8-byte headers of the signatures and levels sections. About 100 bytes per reference plus
    /// the directory (32 KiB up to about 70 hours of audio, 1 MiB at 100; `CatalogIndex.build`):
    /// the bulk (index entries, signatures, levels) is covered by the content hash alone.
    func structureDigest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(UnsafeRawBufferPointer(rebasing: bytes[0..<directoryEnd]))
        for section in [Section.signatures, .levels] {
            let header = body(section).lowerBound - 8
            hasher.update(UnsafeRawBufferPointer(rebasing: bytes[header..<(header + 8)]))
        }
        return hasher.finalize()
    }
}
