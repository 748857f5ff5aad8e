import CLinux
import Glibc
import SoundtraceClock
import SoundtraceFingerprint

/// `soundtrace catalog build`: owned recordings + manifest → one catalog file, reproducibly.
struct CatalogBuildCommand {
    static let usage = """
        usage: soundtrace catalog build [--manifest PATH] [--out PATH] [--jobs N] [--full]

        Builds the catalog file from the manifest and the recordings it names. Building twice, or on
        another machine, or with any number of jobs, gives a byte-identical file. Recordings whose
        SHA-256 matches one in the existing catalog at --out (built with the same engine parameters)
        reuse its fingerprint instead of being analysed again.

        options:
          --manifest PATH   the manifest (default: catalog/manifest.json)
          --out PATH        the catalog file to write (default: soundtrace.catalog beside the manifest)
          --jobs N          recordings analysed at once, 1 to 64 (default: the number of online CPUs)
          --full            analyse every recording, reusing nothing from the existing catalog
          -h, --help        show this help
        """

    /// Shorter recordings could neither be recognized reliably nor verified by `catalog verify`.
    static let minimumSeconds = 6
    /// More threads than this would only hold more recordings in memory at once.
    static let maximumJobs = 64
    /// Bytes read from each recording before the build, for its length in the progress line.
    static let headerBytes = 64 << 10

    let console: Console

    /// How this command answers a malformed command line or -h.
    var commandUsage: CommandUsage { CommandUsage(command: "catalog build", text: Self.usage, console: console) }

    /// One reference's part of the catalog, from analysing its recording or from the old catalog.
    struct Analysed: Sendable {
        let fingerprint: ReferenceFingerprint
        let sourceSHA256: [UInt8]
        /// Samples at the engine's rate, for the length reported.
        let samples: Int
        let reused: Bool
    }

    /// The first two positions, in manifest order, that hold the same value; nil when all differ.
    static func firstRepeat(_ checksums: [[UInt8]]) -> (Int, Int)? {
        var seen: [[UInt8]: Int] = [:]
        for (position, checksum) in checksums.enumerated() {
            if let earlier = seen[checksum] { return (earlier, position) }
            seen[checksum] = position
        }
        return nil
    }

    /// Why a reference could not be built: the message after "soundtrace catalog build: ".
    struct Failure: Error, Sendable {
        let message: String
    }

    func run(_ args: [String]) -> ExitCode {
        let parsed: Arguments
        switch commandUsage.parse(args, valueOptions: ["--manifest", "--out", "--jobs"], flagOptions: ["--full"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        guard parsed.positional.isEmpty else {
            return commandUsage.refuse("unexpected argument \(parsed.positional[0])")
        }
        let jobs: Int
        if let text = parsed.value("--jobs") {
            guard let value = Int(text), (1...Self.maximumJobs).contains(value) else {
                return commandUsage.refuse("--jobs takes a whole number from 1 to \(Self.maximumJobs), not '\(text)'")
            }
            jobs = value
        } else {
            jobs = Self.onlineCPUs()
        }
        // Each recording's landmarks are one array (about 200 KB for 3 minutes), made on a worker
        // thread and freed once the index holds them. Above glibc's mmap threshold a block is
        // mapped on its own and given back when freed; the threshold rises to the size of freed
        // mapped blocks, though, and below it the arrays would come from the workers' arenas,
        // whose freed pages stay resident while the file's bytes are made. A fixed threshold keeps
        // the build's peak at what it holds at once (bench/scale).
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        let manifestPath = parsed.value("--manifest") ?? defaultManifestPath
        let outPath = parsed.value("--out") ?? catalogFileBeside(manifest: manifestPath)
        let parameters = EngineParameters()

        let manifest: Manifest
        do {
            manifest = try Manifest.load(path: manifestPath)
        } catch {
            console.error("soundtrace catalog build: \(error)")
            return .inputError
        }

        let references = manifest.references
        let paths = references.map { FileSystem.join(manifest.folder, $0.sourceFile) }
        if let problem = OutputTarget.catalogRefusal(toReplace: outPath, manifest: manifestPath, recordings: paths) {
            console.error("soundtrace catalog build: \(problem)")
            return .inputError
        }
        var stored = StoredFingerprints.none
        var reusing = false
        if !parsed.flag("--full") {
            let (found, note) = StoredFingerprints.load(path: outPath, parameters: parameters)
            if let note { console.print(note) }
            stored = found
            reusing = note == nil && FileSystem.exists(outPath)
        }

        var progress = CatalogBuildProgress(references: references.count, totalSeconds: paths.reduce(0) { $0 + Self.headerSeconds($1) })
        let started = SystemClock.monotonicNanoseconds()
        console.progress(progress.line(elapsedSeconds: 0))
        let work = OrderedWork<Analysed, Failure>(count: references.count) { [stored] i in
            Self.analyse(references[i], path: paths[i], parameters: parameters, stored: stored)
        }
        let outcome = work.run(threads: jobs) { _, result in
            guard case let .success(analysed) = result else { return }
            progress.finished(seconds: Double(analysed.samples) / Double(parameters.sampleRate), reused: analysed.reused)
            let elapsed = Double(SystemClock.monotonicNanoseconds() - started) / 1e9
            console.progress(progress.line(elapsedSeconds: elapsed))
        }
        console.endProgress()
        let analysed: [Analysed]
        switch consume outcome {
        case let .success(all): analysed = all
        case let .failure(failure):
            console.error("soundtrace catalog build: \(failure.message)")
            return .inputError
        }
        if let (first, second) = Self.firstRepeat(analysed.map(\.sourceSHA256)) {
            console.error(
                "soundtrace catalog build: references '\(references[first].id)' and '\(references[second].id)' have the same recording "
                    + "(\(paths[first]) and \(paths[second]) hold the same bytes); a catalog holds each recording once, "
                    + "or a visitor would hear a tie between them: remove one from the manifest (soundtrace catalog remove ID)")
            return .inputError
        }
        if let silent = analysed.indices.first(where: { analysed[$0].fingerprint.landmarks.isEmpty }) {
            console.error(
                "soundtrace catalog build: reference '\(references[silent].id)': \(paths[silent]) gives no landmarks (it is silent, "
                    + "or nearly), so it could never be recognized; check the file, or remove the reference from the manifest")
            return .inputError
        }

        let seconds = analysed.reduce(0.0) { $0 + Double($1.samples) / Double(parameters.sampleRate) }
        let landmarks = analysed.reduce(0) { $0 + $1.fingerprint.landmarks.count }
        let reused = analysed.filter(\.reused).count
        do {
            let size = try encodeAndWrite(
                consume analysed, references: references, version: manifest.version, parameters: parameters, to: outPath)
            // The file as written, checked in full the way `match` and `verify` load it; mapped, so
            // its pages are the kernel's cache rather than a second copy in this process.
            let catalog = try CatalogFile.load(path: outPath, parameters: parameters)
            console.print(
                "built \(outPath): \(references.count) references, \(Text.seconds(seconds)) s of audio, \(landmarks) landmarks, \(size) bytes"
            )
            console.print("catalog version \(manifest.version), sha256 \(catalog.manifest.hash)")
            if reusing {
                console.print("reused \(reused) of \(references.count) fingerprints from the previous catalog (unchanged recordings)")
            }
            return .success
        } catch {
            console.error("soundtrace catalog build: \(error)")
            return .inputError
        }
    }

    /// Encodes the catalog and writes it to `path`; its size in bytes. The fingerprints and the
    /// encoded bytes are let go here, before the written file is checked; the fingerprints are
    /// handed over whole, so that the encoder can let their landmarks go once they are indexed.
    private func encodeAndWrite(
        _ analysed: consuming [Analysed], references: [ReferenceAudio], version: Int, parameters: EngineParameters,
        to path: String
    ) throws -> Int {
        let checksums = analysed.map(\.sourceSHA256)
        let fingerprints = (consume analysed).map(\.fingerprint)
        let bytes = try CatalogBuilder.encode(
            version: version, references: references, sourceSHA256: checksums, fingerprints: consume fingerprints,
            parameters: parameters)
        try write(bytes, to: path)
        return bytes.count
    }

    /// One reference's fingerprint: reused when the old catalog holds one for a file with the
    /// same SHA-256, analysed otherwise. Runs on a worker thread. The recording is read a block at
    /// a time (`RecordingStream`), so a thread holds a block and the fingerprint, never the file.
    static func analyse(_ reference: ReferenceAudio, path: String, parameters: EngineParameters, stored: StoredFingerprints)
        -> Result<Analysed, Failure>
    {
        let fail = { (detail: String) in Result<Analysed, Failure>.failure(Failure(message: "reference '\(reference.id)': \(detail)")) }
        do {
            // Only a previous catalog needs the checksum before the audio: to know what to reuse.
            var checksum: [UInt8]? = nil
            if !stored.isEmpty {
                let sha = try RecordingStream.sha256(path: path)
                checksum = sha
                if let fingerprint = stored.fingerprint(sourceSHA256: sha) {
                    // Still checked as if analysed, so that reusing refuses what a full build refuses.
                    let samples = try RecordingLoader.engineSampleCount(path: path, parameters: parameters)
                    if let short = tooShort(samples: samples, path: path, parameters: parameters) { return fail(short) }
                    return .success(Analysed(fingerprint: fingerprint, sourceSHA256: sha, samples: samples, reused: true))
                }
            }
            let builder = try CatalogBuilder.fingerprintBuilder(for: reference, parameters: parameters)
            let summary = try RecordingStream.decode(path: path, parameters: parameters) { builder.push($0) }
            if let checksum, checksum != summary.sourceSHA256 {
                return fail("\(path) changed while the catalog was being built; build again once it is written")
            }
            if let short = tooShort(samples: summary.samples, path: path, parameters: parameters) { return fail(short) }
            return .success(
                Analysed(fingerprint: builder.finish(), sourceSHA256: summary.sourceSHA256, samples: summary.samples, reused: false))
        } catch let error as WAVError {
            return fail("\(error)")
        } catch {
            return fail("\(error)")
        }
    }

    private static func tooShort(samples: Int, path: String, parameters: EngineParameters) -> String? {
        guard samples < minimumSeconds * parameters.sampleRate else { return nil }
        let seconds = Double(samples) / Double(parameters.sampleRate)
        return
            "\(path) lasts \(Text.seconds(seconds)) s; a catalog recording must last at least \(minimumSeconds) s to be recognized and verified"
    }

    /// A recording's length from its header, for the progress line; 0 when it cannot be read
    /// (the build reports that file's error when it reaches it).
    private static func headerSeconds(_ path: String) -> Double {
        guard let (head, size) = try? FileBytes.head(path: path, count: headerBytes),
            let layout = try? WAVReader.layout(head, fileSize: size, name: path)
        else { return 0 }
        return Double(layout.frames) / Double(layout.sampleRate)
    }

    /// The default for --jobs: one thread per core the system offers now.
    private static func onlineCPUs() -> Int {
        min(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))), maximumJobs)
    }

    private func write(_ bytes: [UInt8], to path: String) throws(CatalogError) {
        do {
            try FileSystem.replace(path, with: bytes)
        } catch {
            throw .cannotWrite(path: path, reason: error.description)
        }
    }
}
