import Glibc

/// The binary catalog file: magic, format version, engine parameters, the references' metadata,
/// the landmark index, the references' frame signatures and band levels, a SHA-256 of the file's
/// structure (`CatalogLayout.structureDigest`) and a SHA-256 of everything before the latter.
/// Layout in docs/CATALOG.md.
public enum CatalogFile {
    public static let magic: [UInt8] = Array("STCATLOG".utf8)
    /// 4 added the structure checksum, so that start-up need not read the whole file; 5 a second
    /// level word per kept frame, for the bands below 300 Hz.
    public static let formatVersion: UInt32 = 5
    /// Larger files are refused before reading: about 200 hours of audio at the 700 bytes per
    /// audio second catalogs take (docs/CATALOG.md), twice what the scale benchmark builds.
    public static let maximumBytes = 512 << 20

    /// How much of a catalog `load` checks.
    public enum Check: Sendable {
        /// Everything: the content hash over the whole file and every index entry. For `catalog
        /// build`, `verify` and the tools; reads every byte.
        case full
        /// The structure: header, section sizes, parameters, references, index header and
        /// directory, and their checksum; a few hundred KB at most, whatever the catalog's size.
        /// The bulk is read as the matcher needs it (every read of it is bounds-checked, so a
        /// damaged entry can mislead a match but never crash) and `Catalog.verifyContent()`
        /// checks it later. For the daemon's start and reload.
        case structure
    }

    // MARK: Writing

    /// Serializes a catalog. The output depends only on its arguments: no time stamps, no paths of
    /// the build machine, no unordered collections.
    public static func encode(
        version: Int, references: [CatalogReference], index: CatalogIndex,
        signatures: [UInt16], levels: [UInt32], parameters: EngineParameters
    ) -> [UInt8] {
        precondition(signatures.count == references.reduce(0) { $0 + $1.durationFrames }, "one signature per frame")
        precondition(
            levels.count == references.reduce(0) { $0 + ReferenceLevels.count(frames: $1.durationFrames, parameters: parameters) },
            "one level word per kept frame")
        var w = ByteWriter()
        w.append(contentsOf: magic)
        w.u32(formatVersion)

        var p = ByteWriter()
        let fields = parameters.catalogFields
        p.u32(UInt32(fields.count))
        fields.forEach { p.u32($0) }
        section(.parameters, p.bytes, into: &w)

        var r = ByteWriter()
        r.u32(UInt32(version))
        r.u32(UInt32(references.count))
        for reference in references {
            let a = reference.audio
            for text in [a.id, a.title, a.creator, a.license, a.sourceFile] { string(text, into: &r) }
            r.u16(UInt16(a.metadata.count))
            for entry in a.metadata {
                string(entry.key, into: &r)
                string(entry.value, into: &r)
            }
            r.u32(UInt32(reference.durationFrames))
            r.append(contentsOf: reference.sourceSHA256)
        }
        section(.references, r.bytes, into: &w)

        // The big sections go straight into the file's bytes, reserved once: a 100-hour catalog
        // is 250 MB, and a copy of each section, or the growth of the array, would double that.
        let indexBytes = 8 + 4 * (index.directory.count + index.entries.count)
        w.reserve(3 * 8 + indexBytes + 2 * signatures.count + 4 * levels.count + 2 * 40)
        section(.index, length: indexBytes, into: &w) { x in
            for bits in [index.hashBits, index.directoryBits, index.referenceBits, index.frameBits] { x.u8(UInt8(bits)) }
            x.u32(UInt32(index.entries.count))
            index.directory.forEach { x.u32($0) }
            index.entries.forEach { x.u32($0) }
        }
        section(.signatures, length: 2 * signatures.count, into: &w) { g in signatures.forEach { g.u16($0) } }
        section(.levels, length: 4 * levels.count, into: &w) { l in levels.forEach { l.u32($0) } }

        // Both checksums are written as zeros, then filled in where the reader will look for
        // them: the writer and the reader share one definition of what they cover.
        section(.structureChecksum, [UInt8](repeating: 0, count: 32), into: &w)
        section(.contentHash, [UInt8](repeating: 0, count: 32), into: &w)
        var bytes = w.take()
        bytes.withUnsafeMutableBytes { file in
            // The layout of bytes this function just wrote cannot fail to parse.
            guard let layout = try? CatalogLayout(UnsafeRawBufferPointer(file), start: magic.count + 4, path: "") else {
                preconditionFailure("an encoded catalog has a valid layout")
            }
            let structure = layout.structureDigest(UnsafeRawBufferPointer(file))
            file.baseAddress?.advanced(by: layout.body(.structureChecksum).lowerBound).copyMemory(from: structure, byteCount: 32)
            let content = SHA256.digest(UnsafeRawBufferPointer(rebasing: file[0..<layout.contentEnd]))
            file.baseAddress?.advanced(by: layout.body(.contentHash).lowerBound).copyMemory(from: content, byteCount: 32)
        }
        return bytes
    }

    private static func section(_ section: CatalogLayout.Section, _ body: [UInt8], into w: inout ByteWriter) {
        w.u32(section.tag)
        w.u32(UInt32(body.count))
        w.append(contentsOf: body)
    }

    /// A section of `length` bytes that `body` writes into `w` itself.
    private static func section(
        _ section: CatalogLayout.Section, length: Int, into w: inout ByteWriter, body: (inout ByteWriter) -> Void
    ) {
        w.u32(section.tag)
        w.u32(UInt32(length))
        let start = w.bytes.count
        body(&w)
        precondition(w.bytes.count - start == length, "a section is as long as its header says")
    }

    private static func string(_ s: String, into w: inout ByteWriter) {
        let utf8 = Array(s.utf8)
        w.u16(UInt16(utf8.count))
        w.append(contentsOf: utf8)
    }

    // MARK: Reading

    /// Loads and validates a catalog file; any problem is a specific `CatalogError`, never a crash.
    /// The file is mapped, not read: the catalog's index, signatures and levels keep using the
    /// file's pages, so the file must be replaced by renaming a new one over it, never rewritten
    /// in place (docs/CATALOG.md). `check` says how much is read now (see `Check`).
    public static func load(
        path: String, parameters: EngineParameters = EngineParameters(), check: Check = .full
    ) throws(CatalogError) -> Catalog {
        let mapping: FileMapping
        do {
            mapping = try FileMapping(path: path, limit: maximumBytes)
        } catch {
            switch error {
            case let .system(code, reason):
                if code == ENOENT { throw .notFound(path: path) }
                throw .cannotRead(path: path, reason: reason)
            case let .tooLarge(size): throw .tooLarge(path: path, bytes: size, limit: maximumBytes)
            }
        }
        return try decode(mapping.bytes, owner: mapping, path: path, parameters: parameters, check: check)
    }

    /// Decodes and validates a catalog held in memory (the catalog gets its own copy of the bytes).
    public static func decode(
        _ bytes: [UInt8], path: String, parameters: EngineParameters = EngineParameters(), check: Check = .full
    ) throws(CatalogError) -> Catalog {
        let copy = bytes.withUnsafeBytes { HeapBytes(copying: $0) }
        return try decode(UnsafeRawBufferPointer(copy.bytes), owner: copy, path: path, parameters: parameters, check: check)
    }

    /// Decodes `bytes`, which stay valid as long as `owner` lives; the catalog keeps reading them.
    private static func decode(
        _ bytes: UnsafeRawBufferPointer, owner: AnyObject, path: String,
        parameters: EngineParameters, check: Check
    ) throws(CatalogError) -> Catalog {
        guard bytes.count >= magic.count, bytes[0..<magic.count].elementsEqual(magic) else {
            throw .notACatalog(path: path)
        }
        guard bytes.count >= magic.count + 4 else { throw .truncated(path: path, section: "header") }
        let version = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: magic.count, as: UInt32.self))
        guard version == formatVersion else {
            throw .unsupportedFormatVersion(path: path, found: version, supported: formatVersion)
        }
        let layout = try CatalogLayout(bytes, start: magic.count + 4, path: path)
        func section(_ section: CatalogLayout.Section) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[layout.body(section)])
        }
        // The structure checksum first: a damaged header is reported as damage, not as, say, a
        // catalog of other engine parameters that a rebuild would fix.
        guard section(.structureChecksum).elementsEqual(layout.structureDigest(bytes)) else {
            throw .structureChecksumMismatch(path: path)
        }
        let storedDigest = Array(section(.contentHash))
        guard storedDigest.count == 32 else { throw .damaged(path: path, detail: "the content hash is not 32 bytes") }
        if check == .full {
            guard storedDigest == SHA256.digest(UnsafeRawBufferPointer(rebasing: bytes[0..<layout.contentEnd])) else {
                throw .contentHashMismatch(path: path)
            }
        }

        // The parameters and references are copied out to be parsed; the index, signatures and
        // levels, the bulk, are read where they lie.
        try checkParameters(Array(section(.parameters)), path: path, parameters: parameters)
        let (catalogVersion, references) = try decodeReferences(Array(section(.references)), path: path)
        let index = try decodeIndex(section(.index), owner: owner, path: path)
        do {
            // The layout and directory are cheap (32 KiB of directory, up to 512 KiB at 100 hours) and make every lookup stay
            // inside the entries; the entries themselves are as many as the landmarks.
            try index.validateLayout()
            if check == .full { try index.validateEntries(referenceCount: references.count) }
        } catch {
            if case let .inconsistent(detail) = error { throw .damaged(path: path, detail: "index: \(detail)") }
            throw .damaged(path: path, detail: "index")
        }
        // The parameters name the narrowest directory; a big catalog's is wider (`CatalogIndex.build`).
        guard index.hashBits == parameters.hashBits, index.directoryBits >= parameters.directoryBits else {
            throw .damaged(path: path, detail: "index layout differs from its parameters")
        }
        let frames = references.reduce(0) { $0 + $1.durationFrames }
        let signatures = section(.signatures)
        guard signatures.count == 2 * frames else {
            throw .damaged(
                path: path, detail: "signatures section holds \(signatures.count) bytes, not 2 for each of the references' \(frames) frames"
            )
        }
        let levelCount = references.reduce(0) { $0 + ReferenceLevels.count(frames: $1.durationFrames, parameters: parameters) }
        let levels = section(.levels)
        guard levels.count == 4 * levelCount else {
            throw .damaged(
                path: path,
                detail: "levels section holds \(levels.count) bytes, not 4 for each of the references' \(levelCount) level words")
        }
        let manifest = CatalogManifest(
            version: catalogVersion, referenceIds: references.map(\.audio.id),
            hash: SHA256.hex(storedDigest))
        return Catalog(
            parameters: parameters, manifest: manifest, references: references, index: index,
            signatures: StoredWords(signatures, owner: owner), levels: StoredWords(levels, owner: owner),
            content: Catalog.Content(
                path: path, length: layout.contentEnd, digest: storedDigest, digestOffset: layout.body(.contentHash).lowerBound,
                file: owner as? FileMapping),
            contentChecked: check == .full)
    }

    private static func checkParameters(_ body: [UInt8], path: String, parameters: EngineParameters) throws(CatalogError) {
        var r = ByteReader(body)
        let expected = parameters.catalogFields
        guard let count = try? r.u32() else { throw .truncated(path: path, section: "parameters section") }
        // An older engine may have stored fewer fields: its revision says so, and how to rebuild.
        var first = r
        if count != UInt32(expected.count), count > 0, let revision = try? first.u32(), revision != expected[0] {
            throw .parameterMismatch(path: path, field: "algorithmRevision", stored: revision, expected: expected[0])
        }
        guard count == UInt32(expected.count) else {
            throw .damaged(path: path, detail: "parameters section has the wrong number of fields")
        }
        for (i, want) in expected.enumerated() {
            guard let stored = try? r.u32() else { throw .truncated(path: path, section: "parameters section") }
            if stored != want {
                let names = EngineParameters.catalogFieldNames
                throw .parameterMismatch(
                    path: path, field: names.indices.contains(i) ? names[i] : "field \(i)", stored: stored, expected: want)
            }
        }
    }

    private static func decodeReferences(_ body: [UInt8], path: String) throws(CatalogError) -> (Int, [CatalogReference]) {
        var r = ByteReader(body)
        do {
            let version = Int(try r.u32())
            let count = Int(try r.u32())
            // Each reference takes at least 48 bytes, so a bogus count cannot make us allocate much.
            guard count <= r.remaining / 48 else {
                throw CatalogError.damaged(path: path, detail: "reference count \(count) exceeds the section")
            }
            var references: [CatalogReference] = []
            var seen = Set<String>()
            for _ in 0..<count {
                let id = try string(&r, path: path)
                let title = try string(&r, path: path)
                let creator = try string(&r, path: path)
                let license = try string(&r, path: path)
                let source = try string(&r, path: path)
                let metadataCount = Int(try r.u16())
                var metadata: [ReferenceAudio.MetadataEntry] = []
                for _ in 0..<metadataCount {
                    let key = try string(&r, path: path)
                    let value = try string(&r, path: path)
                    metadata.append(.init(key: key, value: value))
                }
                let frames = Int(try r.u32())
                let sha = Array(try r.bytes(32))
                guard ReferenceAudio.isValidID(id), seen.insert(id).inserted else {
                    throw CatalogError.damaged(path: path, detail: "invalid or duplicate reference id '\(id)'")
                }
                references.append(
                    CatalogReference(
                        audio: ReferenceAudio(
                            id: id, title: title, creator: creator, license: license, sourceFile: source, metadata: metadata),
                        durationFrames: frames, sourceSHA256: sha))
            }
            guard r.remaining == 0 else { throw CatalogError.damaged(path: path, detail: "references section has trailing bytes") }
            return (version, references)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .damaged(path: path, detail: "references section ends inside a reference")
        }
    }

    private static func string(_ r: inout ByteReader, path: String) throws -> String {
        let length = Int(try r.u16())
        let raw = try r.bytes(length)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw CatalogError.damaged(path: path, detail: "a text field is not valid UTF-8")
        }
        // A manifest cannot hold them, so only a forged or damaged file can; printed, they would
        // drive the terminal of whoever lists the catalog.
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw CatalogError.damaged(path: path, detail: "a text field holds control characters")
        }
        return text
    }

    /// The index header, then its directory and entries as words that stay in `body`'s memory.
    private static func decodeIndex(_ body: UnsafeRawBufferPointer, owner: AnyObject, path: String) throws(CatalogError) -> CatalogIndex {
        let header = 8
        guard body.count >= header else { throw .damaged(path: path, detail: "index section ends early") }
        let hashBits = Int(body[0])
        let directoryBits = Int(body[1])
        let referenceBits = Int(body[2])
        let frameBits = Int(body[3])
        let count = Int(UInt32(littleEndian: body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        guard directoryBits >= 1, directoryBits <= 24 else {
            throw .damaged(path: path, detail: "index directory of \(directoryBits) bits")
        }
        let directorySize = (1 << directoryBits) + 1
        guard body.count - header == 4 * (directorySize + count) else {
            throw .damaged(path: path, detail: "index section size does not match its counts")
        }
        let entriesStart = header + 4 * directorySize
        let directory = IndexWords(UnsafeRawBufferPointer(rebasing: body[header..<entriesStart]), owner: owner)
        let entries = IndexWords(UnsafeRawBufferPointer(rebasing: body[entriesStart...]), owner: owner)
        return CatalogIndex(
            hashBits: hashBits, directoryBits: directoryBits, referenceBits: referenceBits,
            frameBits: frameBits, directory: directory, entries: entries)
    }
}
