// The catalog file: CatalogFile.decode (a heap copy, where AddressSanitizer sees every byte) and
// CatalogFile.load (the file mapped and validated in place), then a query matched against what
// was accepted, which must never read outside it.
//
// Two checksums guard the file (the structure checksum over the header, parameters, references
// and index directory; the content hash over everything), so mutated bytes would almost never get
// past them: the input is a catalog without those two sections, and the harness appends the right
// ones (it also decodes the input as it is, for the checks themselves). Each input is also loaded
// as the daemon loads it (`Check.structure`: the index entries are not validated), so the matcher
// meets entries that name references the catalog lacks, and unsorted buckets. Fuzzing uses a small index directory (8 bits
// instead of 13, the only parameter changed), so a whole catalog is a few KB and mutations reach
// every section; inputs are also tried with the shipped parameters.
//
// SOUNDTRACE_FUZZ_SEEDS=DIR fuzz-catalog writes the seed catalogs (built from the query's own
// audio, so the matcher finds a candidate and checks it against the fuzzed signatures and levels).
import Glibc
@testable import SoundtraceFingerprint

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? CatalogFile.decode(input, path: "fuzz.catalog")
    let hashed = withChecksums(input)
    for parameters in [Fuzzing.parameters, EngineParameters()] {
        let structural = try? CatalogFile.decode(hashed, path: "fuzz.catalog", parameters: parameters, check: .structure)
        if let structural { use(structural) }
        guard let catalog = try? CatalogFile.decode(hashed, path: "fuzz.catalog", parameters: parameters) else { continue }
        expect(structural != nil, "a catalog the full check accepts was refused by the structure check")
        // The mapped file must give exactly what the copy gave.
        let mapped = Fuzzing.loadMapped(hashed, parameters: parameters)
        expect(mapped?.manifest == catalog.manifest && mapped?.index == catalog.index && mapped?.references == catalog.references,
               "the mapped catalog differs from the decoded one")
        use(catalog)
    }
    return 0
}

/// `bytes` followed by the structure checksum and content hash sections a catalog ends with,
/// both right for `bytes` (when its sections can be found at all).
private func withChecksums(_ bytes: [UInt8]) -> [UInt8] {
    var w = ByteWriter()
    for tag in ["STRC", "HASH"] {
        w.append(contentsOf: Array(tag.utf8))
        w.u32(32)
        w.append(contentsOf: [UInt8](repeating: 0, count: 32))
    }
    var out = bytes + w.bytes
    let start = CatalogFile.magic.count + 4
    guard let layout = try? out.withUnsafeBytes({ try CatalogLayout($0, start: start, path: "fuzz.catalog") }) else { return out }
    let structure = out.withUnsafeBytes { layout.structureDigest($0) }
    out.replaceSubrange(layout.body(.structureChecksum), with: structure)
    out.replaceSubrange(layout.body(.contentHash), with: SHA256.digest(out[0..<layout.contentEnd]))
    return out
}

/// What the daemon does with a catalog it accepted: matches audio against it.
private func use(_ catalog: Catalog) {
    _ = catalog.totalFrames
    _ = catalog.reference(id: catalog.manifest.referenceIds.first ?? "")
    guard let matcher = try? QueryMatcher(catalog: catalog) else { return }
    matcher.push(Fuzzing.query)
    matcher.finish()
    let verdict = matcher.verdict()
    if let candidate = verdict.candidate {
        expect(catalog.references.indices.contains(candidate), "the verdict names reference \(candidate) of \(catalog.references.count)")
    }
}

enum Fuzzing {
    static let parameters: EngineParameters = {
        var p = EngineParameters()
        p.directoryBits = 8
        return p
    }()

    /// A plucked two-voice melody (deterministic: an LCG picks the notes), 6 s at the engine's rate.
    static let music: [Int16] = {
        let rate = 8000
        var state: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
        var mix = [Double](repeating: 0, count: 6 * rate)
        for voice in 0..<2 {
            var t = 0
            while t < mix.count {
                let length = rate / 8 + next(rate / 3)
                let midi = Double((voice == 0 ? 64 : 52) + [0, 2, 4, 5, 7, 9, 11][next(7)] + 12 * next(2))
                let frequency = 440 * pow(2, (midi - 69) / 12)
                for i in 0..<min(length, mix.count - t) {
                    let time = Double(i) / Double(rate)
                    mix[t + i] += exp(-6 * time) * (sin(2 * .pi * frequency * time) + 0.4 * sin(4 * .pi * frequency * time))
                }
                t += length
            }
        }
        return mix.map { Int16(max(-32767, min(32767, $0 * 9000))) }
    }()

    /// Two seconds from the middle of `music`, the least with which the matcher finds the seeds'
    /// reference (and so checks the fuzzed signatures and levels). Analysing it is most of the time
    /// of an input that decodes; it does not depend on the input, but the matcher's use does.
    static let query = Array(music[16000..<32000])

    /// An unlinked scratch file, reached through /proc/self/fd (Glibc's module has no memfd_create).
    static let scratch: Int32 = {
        var template = Array("/tmp/soundtrace-fuzz-catalog-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        expect(fd >= 0, "mkstemp failed")
        unlink(template)
        return fd
    }()

    /// `bytes` written to a file and loaded through its path, as the daemon loads a catalog.
    static func loadMapped(_ bytes: [UInt8], parameters: EngineParameters) -> Catalog? {
        expect(ftruncate(scratch, 0) == 0, "ftruncate failed")
        expect(bytes.withUnsafeBytes { pwrite(scratch, $0.baseAddress, $0.count, 0) } == bytes.count, "short write")
        return try? CatalogFile.load(path: "/proc/self/fd/\(scratch)", parameters: parameters)
    }

    /// The seed catalogs, each without its structure checksum and hash sections.
    static func writeSeeds(to directory: String) {
        let sha = [UInt8](repeating: 0xAB, count: 32)
        func reference(_ id: String, _ metadata: [ReferenceAudio.MetadataEntry]) -> ReferenceAudio {
            ReferenceAudio(id: id, title: "Fuzz \(id)", creator: "Soundtrace", license: "CC0-1.0", sourceFile: "\(id).wav", metadata: metadata)
        }
        let one = CatalogBuilder.Input(audio: reference("fuzz-melody", []), samples: PCMAudio(sampleRate: 8000, samples: music), sourceSHA256: sha)
        let two = CatalogBuilder.Input(audio: reference("second", [.init(key: "kind", value: "synthetic"), .init(key: "note", value: "é ✓")]),
                                       samples: PCMAudio(sampleRate: 8000, samples: Array(music[8000...].reversed())), sourceSHA256: sha)
        for (name, inputs) in [("one-reference", [one]), ("two-references", [one, two])] {
            do {
                let fingerprints = try inputs.map { try CatalogBuilder.fingerprint(of: $0, parameters: parameters) }
                let bytes = try CatalogBuilder.encode(version: 7, inputs: inputs, fingerprints: fingerprints, parameters: parameters)
                let catalog = try CatalogFile.decode(bytes, path: name, parameters: parameters)
                let matcher = try QueryMatcher(catalog: catalog)
                matcher.push(query)
                matcher.finish()
                print("\(name): \(bytes.count - 80) bytes, query verdict \(matcher.verdict().outcome)")
                let file = fopen("\(directory)/\(name)", "wb")
                expect(file != nil, "cannot write \(directory)/\(name)")
                _ = bytes.dropLast(80).withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                fclose(file)
            } catch {
                fatalError("seed \(name): \(error)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> Int32 {
    if let directory = getenv("SOUNDTRACE_FUZZ_SEEDS") {
        Fuzzing.writeSeeds(to: String(cString: directory))
        exit(0)
    }
    return 0
}
