/// What a catalog keeps of each reference, read back as the fingerprint it was built from, so that
/// `catalog build` can reuse an unchanged recording's work instead of decoding and analysing it again.
extension Catalog {
    /// The stored fingerprints of the references at `positions` (indices into `references`).
    /// Landmarks come back sorted by hash, not in the order they were found; the index sorts them
    /// anyway, so a catalog built from these fingerprints is the same to the byte.
    public func storedFingerprints(at positions: Set<Int>) -> [Int: ReferenceFingerprint] {
        // By reference number, nil for the references not asked for: a lookup per index entry.
        var landmarks = [[Landmark]?](repeating: nil, count: references.count)
        for position in positions where references.indices.contains(position) { landmarks[position] = [] }
        guard landmarks.contains(where: { $0 != nil }) else { return [:] }
        // One pass over the whole index: an entry's hash is its directory bucket followed by the
        // entry's top bits, and its reference and frame are the bits below them.
        let lowBits = index.lowBits
        let frameBits = index.frameBits
        let referenceMask = (UInt32(1) << UInt32(index.referenceBits)) - 1
        let frameMask = (UInt32(1) << UInt32(frameBits)) - 1
        for bucket in 0..<(index.directory.count - 1) {
            // Inside the entries even if the mapped file was rewritten since it was validated.
            let start = Int(index.directory[bucket])
            let end = min(Int(index.directory[bucket + 1]), index.entries.count)
            guard start < end else { continue }
            for e in start..<end {
                let entry = index.entries[e]
                let reference = Int((entry >> UInt32(frameBits)) & referenceMask)
                guard reference < landmarks.count, landmarks[reference] != nil else { continue }
                let hash = UInt32(bucket) << UInt32(lowBits) | entry >> UInt32(32 - lowBits)
                landmarks[reference]?.append(Landmark(hash: hash, frame: Int(entry & frameMask)))
            }
        }
        var result: [Int: ReferenceFingerprint] = [:]
        for (position, found) in landmarks.enumerated() {
            guard let list = found else { continue }
            let frames = references[position].durationFrames
            let signatureFrom = signatureStart[position]
            let levelFrom = levelStart[position]
            let levelCount = ReferenceLevels.count(frames: frames, parameters: parameters)
            result[position] = ReferenceFingerprint(
                landmarks: list, frames: frames, signatures: Array(signatures[signatureFrom..<(signatureFrom + frames)]),
                levels: Array(levels[levelFrom..<(levelFrom + levelCount)]))
        }
        return result
    }
}
