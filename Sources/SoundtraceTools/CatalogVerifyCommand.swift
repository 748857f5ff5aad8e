import SoundtraceFingerprint

/// `soundtrace catalog verify`: reload the file, check its hash, and prove that every reference
/// matches itself at several offsets with the right offset.
struct CatalogVerifyCommand {
    static let usage = """
        usage: soundtrace catalog verify [--catalog PATH] [--audio-root DIR]

        Reloads the catalog, checks its content hash and format, checks that each source recording is
        the one that was indexed (SHA-256), and matches excerpts of every recording at several offsets,
        which must name that recording at the right offset.

        options:
          --catalog PATH     the catalog file (default: catalog/soundtrace.catalog)
          --audio-root DIR   the folder the recordings' sourceFile paths are relative to
                             (default: the catalog file's folder)
          -h, --help         show this help

        exit status: 0 when everything checks out, 1 when a check failed, 2 for a wrong command line,
        3 when the catalog could not be loaded.
        """

    /// Excerpt length and where excerpts start, in percent of each recording.
    static let excerptSeconds = 5
    static let excerptPercents = [10, 45, 80]
    /// Excerpts start this many samples off the frame grid, as real queries do.
    static let gridShiftSamples = 37

    let console: Console

    /// How this command answers a malformed command line or -h.
    var commandUsage: CommandUsage { CommandUsage(command: "catalog verify", text: Self.usage, console: console) }

    func run(_ args: [String]) -> ExitCode {
        let parsed: Arguments
        switch commandUsage.parse(args, valueOptions: ["--catalog", "--audio-root"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        guard parsed.positional.isEmpty else {
            return commandUsage.refuse("unexpected argument \(parsed.positional[0])")
        }
        if let root = parsed.value("--audio-root"), !FileSystem.isFolder(root) {
            return commandUsage.refuse("--audio-root \(root) is not a folder; name the folder the recordings' paths start from")
        }
        let path = parsed.value("--catalog") ?? defaultCatalogPath
        guard let catalog = loadCatalog(path, command: "catalog verify", console: console) else { return .inputError }
        console.print(
            "catalog \(path): format and content hash ok (sha256 \(catalog.manifest.hash)), \(catalog.references.count) recordings")
        let root = parsed.value("--audio-root") ?? FileSystem.directory(of: path)
        var failures = 0
        for (index, reference) in catalog.references.enumerated() {
            let problem = check(reference, index: index, catalog: catalog, root: root)
            if let problem {
                failures += 1
                console.print("FAIL \(reference.audio.id): \(problem)")
            } else {
                console.print("ok   \(reference.audio.id): matches itself at \(Self.excerptPercents.count) offsets")
            }
        }
        if failures > 0 {
            console.error("soundtrace catalog verify: \(failures) of \(catalog.references.count) recordings failed")
            return .checkFailed
        }
        console.print("verified: every recording matches itself at the right offset")
        return .success
    }

    /// Nil when the reference checks out, else what went wrong.
    private func check(_ reference: CatalogReference, index: Int, catalog: Catalog, root: String) -> String? {
        let p = catalog.parameters
        let path = FileSystem.join(root, reference.audio.sourceFile)
        let loaded: RecordingLoader.Loaded
        do {
            loaded = try RecordingLoader.load(path: path, parameters: p, checksum: true)
        } catch {
            return "\(error) (pass --audio-root if the recordings live elsewhere)"
        }
        guard loaded.sourceSHA256 == reference.sourceSHA256 else {
            return "\(path) is not the recording that was indexed (SHA-256 differs); rebuild with: soundtrace catalog build"
        }
        let samples = loaded.audio.samples
        let length = Self.excerptSeconds * p.sampleRate
        guard samples.count > length + Self.gridShiftSamples else { return "shorter than \(Self.excerptSeconds) s, too short to verify" }
        for percent in Self.excerptPercents {
            let start = min(samples.count - length, samples.count * percent / 100 + Self.gridShiftSamples)
            let excerpt = PCMAudio(sampleRate: p.sampleRate, samples: Array(samples[start..<(start + length)]))
            let verdict: Verdict
            do {
                verdict = try FileMatching.match(excerpt, catalog: catalog)
            } catch let error as CatalogError {
                return "\(error)"
            } catch {
                return "the matcher could not start: \(error)"
            }
            let expected = Double(start) / Double(p.sampleRate)
            guard verdict.isMatch, verdict.candidate == index else {
                let other = verdict.candidate.map { catalog.references[$0].audio.id } ?? "nothing"
                return
                    "excerpt at \(Text.seconds(expected)) s gave \(verdict.isMatch ? "a match of \(other)" : "no match") (score \(verdict.score))"
            }
            let found = p.seconds(forFrames: verdict.offsetFrames)
            let tolerance = p.seconds(forFrames: 2)
            guard abs(found - expected) <= tolerance else {
                return "excerpt at \(Text.seconds(expected)) s matched at \(Text.seconds(found)) s"
            }
        }
        return nil
    }
}
