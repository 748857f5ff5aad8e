import SoundtraceFingerprint

/// Matches whole recordings (files) against a catalog: the offline counterpart of a live session.
public enum FileMatching {
    /// The verdict on `audio` (already at the engine's rate), fed in buffers of `bufferSamples`
    /// as a capture device would deliver them.
    public static func match(_ audio: PCMAudio, catalog: Catalog, bufferSamples: Int = 1024) throws -> Verdict {
        let matcher = try QueryMatcher(catalog: catalog)
        var start = 0
        while start < audio.samples.count {
            let end = min(audio.samples.count, start + bufferSamples)
            matcher.push(Array(audio.samples[start..<end]))
            start = end
        }
        matcher.finish()
        let verdict = matcher.verdict()
        // The index, signatures and levels were read from the mapped file as the query went on.
        try catalog.checkUnchangedSinceLoading()
        return verdict
    }
}
