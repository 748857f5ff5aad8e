/// The landmark index of a catalog: entries sorted by hash, found through a directory of the top
/// hash bits. Each entry packs the remaining hash bits, the reference number and the anchor frame
/// into 32 bits, which keeps the index near 4 bytes per landmark. A big catalog needs more bits for
/// its references and frames: the directory then takes more of the hash, so that entries stay 4
/// bytes and only the directory grows (4 bytes per bucket, at most 4 MiB). The words stay where
/// they are stored: a loaded catalog reads them from its mapped file (see `IndexWords`).
public struct CatalogIndex: Sendable, Equatable {
    public let hashBits: Int
    public let directoryBits: Int
    public let referenceBits: Int
    public let frameBits: Int
    /// directory[b] ..< directory[b + 1] are the entries whose hash starts with b.
    public let directory: IndexWords
    public let entries: IndexWords

    var lowBits: Int { hashBits - directoryBits }

    public enum Failure: Error, Equatable {
        case tooManyReferences(Int, max: Int)
        case referenceTooLong(frames: Int, maxFrames: Int)
        case inconsistent(String)
    }

    /// Builds the index of `landmarks[r]` for references r = 0, 1, ….
    /// `minimumDirectoryBits` is the directory's width when the references and their frames fit in
    /// the bits an entry has left (every catalog up to about 70 hours); beyond that the directory
    /// widens by as many bits as they lack, up to `hashBits - 1`.
    public static func build(landmarks: [[Landmark]], hashBits: Int, minimumDirectoryBits: Int) throws(Failure) -> CatalogIndex {
        let referenceBits = bitsToHold(landmarks.count - 1)
        let lastFrame = landmarks.lazy.compactMap { $0.lazy.map(\.frame).max() }.max() ?? 0
        let neededFrameBits = bitsToHold(lastFrame)
        // An entry keeps at least one hash bit, so that a bucket's entries still sort by hash.
        let widestRoom = 31
        guard referenceBits + neededFrameBits <= widestRoom else {
            if neededFrameBits > widestRoom - 1 { throw .referenceTooLong(frames: lastFrame, maxFrames: (1 << (widestRoom - 1)) - 1) }
            throw .tooManyReferences(landmarks.count, max: 1 << (widestRoom - neededFrameBits))
        }
        let lowBits = min(hashBits - minimumDirectoryBits, 32 - referenceBits - neededFrameBits)
        let directoryBits = hashBits - lowBits
        let frameBits = 32 - lowBits - referenceBits
        // A counting sort by bucket, then each bucket's entries sorted as words: an entry's bits
        // are its low hash bits, reference and frame, most significant first, so a bucket's words
        // sort as (hash, reference, frame) do. Nothing wider than the entries is ever held: a
        // 100-hour build has 48 million of them.
        let total = landmarks.reduce(0) { $0 + $1.count }
        var directory = [UInt32](repeating: 0, count: (1 << directoryBits) + 1)
        for list in landmarks {
            for landmark in list { directory[Int(landmark.hash >> UInt32(lowBits)) + 1] += 1 }
        }
        for b in 1..<directory.count { directory[b] += directory[b - 1] }
        let storage = HeapBytes(count: total * MemoryLayout<UInt32>.size)
        let entries = storage.bytes.bindMemory(to: UInt32.self)
        var next = directory.dropLast().map { Int($0) }
        let lowMask = (UInt32(1) << UInt32(lowBits)) - 1
        for (reference, list) in landmarks.enumerated() {
            let referenceField = UInt32(reference) << UInt32(frameBits)
            for landmark in list {
                let bucket = Int(landmark.hash >> UInt32(lowBits))
                // lowBits ≥ 1 here (an entry keeps at least one hash bit), so the shift is below 32.
                entries[next[bucket]] = (landmark.hash & lowMask) << UInt32(32 - lowBits) | referenceField | UInt32(landmark.frame)
                next[bucket] += 1
            }
        }
        for b in 0..<(directory.count - 1) where directory[b + 1] - directory[b] > 1 {
            var bucket = UnsafeMutableBufferPointer(rebasing: entries[Int(directory[b])..<Int(directory[b + 1])])
            bucket.sort()
        }
        for i in 0..<total { entries[i] = entries[i].littleEndian }
        return CatalogIndex(
            hashBits: hashBits, directoryBits: directoryBits, referenceBits: referenceBits,
            frameBits: frameBits, directory: IndexWords(copying: directory),
            entries: IndexWords(UnsafeRawBufferPointer(storage.bytes), owner: storage))
    }

    /// Bits of an unsigned number that can hold `value` (at least one).
    private static func bitsToHold(_ value: Int) -> Int { max(1, Int.bitWidth - max(0, value).leadingZeroBitCount) }

    /// An index from stored parts, as they are; `validate` checks that they are consistent.
    init(
        hashBits: Int, directoryBits: Int, referenceBits: Int, frameBits: Int,
        directory: IndexWords, entries: IndexWords
    ) {
        self.hashBits = hashBits
        self.directoryBits = directoryBits
        self.referenceBits = referenceBits
        self.frameBits = frameBits
        self.directory = directory
        self.entries = entries
    }

    /// Checks the invariants a reader must trust before looking anything up.
    public func validate(referenceCount: Int) throws(Failure) {
        try validateLayout()
        try validateEntries(referenceCount: referenceCount)
    }

    /// The bit layout and the directory: every bucket's run lies inside the entries, so no lookup
    /// can read past them. Reads the directory only (2^directoryBits + 1 words).
    public func validateLayout() throws(Failure) {
        guard hashBits > directoryBits, directoryBits >= 1, directoryBits <= 24,
            referenceBits >= 1, frameBits >= 1, hashBits - directoryBits + referenceBits + frameBits == 32
        else {
            throw .inconsistent("bit layout \(hashBits)/\(directoryBits)/\(referenceBits)/\(frameBits) does not add up")
        }
        guard directory.count == (1 << directoryBits) + 1, directory.first == 0,
            Int(directory.last ?? 0) == entries.count
        else {
            throw .inconsistent("directory does not cover the \(entries.count) entries")
        }
        for b in 1..<directory.count where directory[b] < directory[b - 1] {
            throw .inconsistent("directory is not ascending at bucket \(b - 1)")
        }
    }

    /// Every entry: sorted within its bucket, naming a reference the catalog has. Reads the whole
    /// index. Not needed for safety (`VoteGrid.cell` ignores a reference the catalog lacks), only
    /// to refuse an index a buggy writer got wrong.
    public func validateEntries(referenceCount: Int) throws(Failure) {
        let referenceMask = (UInt32(1) << referenceBits) - 1
        for b in 0..<(directory.count - 1) {
            var previous: UInt32? = nil
            // Checked at load, but read again from the mapped file, which may change in between.
            let start = Int(directory[b])
            let end = Int(directory[b + 1])
            guard start <= end, end <= entries.count else {
                throw .inconsistent("the directory changed while the index was read (the file was rewritten)")
            }
            for e in start..<end {
                let entry = entries[e]
                if let previous, entry < previous { throw .inconsistent("bucket \(b) is not sorted") }
                previous = entry
                let reference = Int((entry >> frameBits) & referenceMask)
                guard reference < referenceCount else {
                    throw .inconsistent("entry \(e) names reference \(reference) of \(referenceCount)")
                }
            }
        }
    }

    /// Calls `hit(reference, frame)` for every entry with this hash, unless there are more than
    /// `limit` of them (a hash that common carries no information). Returns the number of hits.
    @discardableResult
    func lookup(_ hash: UInt32, limit: Int, hit: (Int, Int) -> Void) -> Int {
        let found = run(of: hash)
        guard !found.isEmpty, found.count <= limit else { return 0 }
        forEachHit(in: found, hit)
        return found.count
    }

    /// The entries with this hash, as positions in `entries` (empty when there are none).
    func run(of hash: UInt32) -> Range<Int> {
        let bucket = Int(hash >> UInt32(lowBits))
        guard bucket + 1 < directory.count else { return 0..<0 }
        let low = hash & ((UInt32(1) << UInt32(lowBits)) - 1)
        let shift = UInt32(32 - lowBits)
        // Entries are sorted, and the low hash bits are their top bits: binary search the run.
        // The directory was validated at load, but it is read from the mapped file, which a
        // rewrite in place can change under it: a run stays inside the entries whatever it says.
        let end = min(Int(directory[bucket + 1]), entries.count)
        let start = min(Int(directory[bucket]), end)
        let first = lowerBound(start, end) { $0 >> shift < low }
        return first..<lowerBound(first, end) { $0 >> shift <= low }
    }

    /// The entries of one reference within a hash's run: they sort by reference, then frame.
    func entries(of reference: Int, in run: Range<Int>) -> Range<Int> {
        let referenceMask = (UInt32(1) << UInt32(referenceBits)) - 1
        let shift = UInt32(frameBits)
        let wanted = UInt32(truncatingIfNeeded: reference)
        let first = lowerBound(run.lowerBound, run.upperBound) { ($0 >> shift) & referenceMask < wanted }
        return first..<lowerBound(first, run.upperBound) { ($0 >> shift) & referenceMask <= wanted }
    }

    /// Calls `hit(reference, frame)` for every entry in `range`.
    @inline(__always) func forEachHit(in range: Range<Int>, _ hit: (Int, Int) -> Void) {
        let frameMask = (UInt32(1) << UInt32(frameBits)) - 1
        let referenceMask = (UInt32(1) << UInt32(referenceBits)) - 1
        for e in range {
            let entry = entries[e]
            hit(Int((entry >> UInt32(frameBits)) & referenceMask), Int(entry & frameMask))
        }
    }

    private func lowerBound(_ start: Int, _ end: Int, _ before: (UInt32) -> Bool) -> Int {
        var lo = start
        var hi = end
        while lo < hi {
            let mid = (lo + hi) / 2
            if before(entries[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
