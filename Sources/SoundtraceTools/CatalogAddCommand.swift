import Glibc
import SoundtraceFingerprint

/// `soundtrace catalog add`: one recording into the manifest without editing JSON by hand. Every
/// check runs before anything is written: the file must decode and be long and loud enough to be
/// recognized, its licence must be SPDX, and its sound must not already be in the catalog (under
/// another name, as another file). Then the file is copied beside the manifest (unless it already
/// lies there) and the manifest replaced atomically.
struct CatalogAddCommand {
    static let usage = """
        usage: soundtrace catalog add FILE --id ID --title TITLE --creator CREATOR --license SPDX
                                      [--meta KEY=VALUE]... [--manifest PATH] [--catalog PATH] [--json]

        Adds a recording to the manifest. FILE is a WAV file (PCM 16/24/32-bit or float, mono or
        stereo, 8-48 kHz) of at least 6 s. It is copied to audio/ID.wav beside the manifest unless it
        already lies in the manifest's folder. Its sound is matched against the catalog file first: a
        recording already in the catalog is refused. Then build, verify and install the catalog (the
        command prints the steps).

        options:
          --id ID           3-64 characters: lowercase a-z, 0-9 and '-'
          --title TITLE     --creator CREATOR   shown with every match
          --license SPDX    an SPDX licence identifier or expression, e.g. CC-BY-4.0; LicenseRef-NAME
                            for terms of your own
          --meta KEY=VALUE  extra metadata (repeatable)
          --manifest PATH   the manifest (default: catalog/manifest.json)
          --catalog PATH    the catalog file to check for duplicates (default: soundtrace.catalog beside the manifest)
          --json            one JSON object on stdout
          -h, --help        show this help
        """

    /// Quieter than this (RMS, dBFS) is a silent or nearly silent file, not a recording to recognize.
    static let minimumLevelDecibels = -50.0

    let console: Console

    func run(_ args: [String]) -> ExitCode {
        let usage = CommandUsage(command: "catalog add", text: Self.usage, console: console)
        // --meta repeats, which the shared reader refuses: take those pairs out first.
        var metadata: [ReferenceAudio.MetadataEntry] = []
        var rest: [String] = []
        var i = 0
        while i < args.count {
            let arg = args[i]
            var pair: String? = nil
            if arg == "--meta" {
                guard i + 1 < args.count else { return usage.refuse("--meta needs KEY=VALUE") }
                pair = args[i + 1]
                i += 2
            } else if arg.hasPrefix("--meta=") {
                pair = String(arg.dropFirst("--meta=".count))
                i += 1
            } else {
                rest.append(arg)
                i += 1
                continue
            }
            guard let pair, let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                return usage.refuse("--meta takes KEY=VALUE, not '\(pair ?? "")'")
            }
            let key = String(pair[..<eq])
            guard !metadata.contains(where: { $0.key == key }) else { return usage.refuse("--meta \(key) was given twice") }
            metadata.append(.init(key: key, value: String(pair[pair.index(after: eq)...])))
        }
        let parsed: Arguments
        switch usage.parse(
            rest, valueOptions: ["--id", "--title", "--creator", "--license", "--manifest", "--catalog"], flagOptions: ["--json"])
        {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        guard parsed.positional.count == 1 else {
            return usage.refuse(
                parsed.positional.isEmpty ? "name the WAV file to add" : "one file at a time (got \(parsed.positional.count))")
        }
        var fields: [String: String] = [:]
        for name in ["--id", "--title", "--creator", "--license"] {
            guard let value = parsed.value(name) else { return usage.refuse("\(name) is required") }
            fields[name] = value
        }
        let manifestPath = parsed.value("--manifest") ?? defaultManifestPath
        let request = Request(
            file: parsed.positional[0], id: fields["--id"]!, title: fields["--title"]!,
            creator: fields["--creator"]!, license: fields["--license"]!, metadata: metadata,
            manifestPath: manifestPath,
            catalogPath: parsed.value("--catalog") ?? catalogFileBeside(manifest: manifestPath))
        switch add(request) {
        case let .success(done):
            if parsed.flag("--json") {
                console.print(
                    Text.jsonObject([
                        ("added", Text.json(request.id)), ("manifest", Text.json(request.manifestPath)),
                        ("sourceFile", Text.json(done.sourceFile)), ("copied", done.copied ? "true" : "false"),
                        ("seconds", Text.seconds(done.seconds)), ("references", String(done.references)),
                        ("duplicateCheck", Text.json(done.duplicateCheck)),
                        (
                            "nextSteps",
                            "["
                                + CatalogEditSteps.lines(manifest: request.manifestPath, catalog: request.catalogPath)
                                .map(Text.json).joined(separator: ", ") + "]"
                        )
                    ]))
            } else {
                console.print(
                    "added \(request.id) to \(request.manifestPath) (\(done.references) references): \(done.sourceFile), \(Text.seconds(done.seconds)) s\(done.copied ? " (copied)" : "")"
                )
                console.print(done.duplicateCheck)
                console.print(
                    "next:\n"
                        + CatalogEditSteps.lines(manifest: request.manifestPath, catalog: request.catalogPath)
                        .map { "  " + $0 }.joined(separator: "\n"))
            }
            return .success
        case let .failure(problem):
            console.error("soundtrace catalog add: \(problem.message)")
            return .inputError
        }
    }

    struct Request {
        let file, id, title, creator, license: String
        let metadata: [ReferenceAudio.MetadataEntry]
        let manifestPath, catalogPath: String
    }

    struct Done {
        let sourceFile: String
        let copied: Bool
        let seconds: Double
        let references: Int
        let duplicateCheck: String
    }

    struct Problem: Error { let message: String }

    func add(_ r: Request) -> Result<Done, Problem> {
        let manifest: Manifest
        do {
            manifest = try Manifest.load(path: r.manifestPath)
        } catch {
            return .failure(Problem(message: "\(error)"))
        }
        guard ReferenceAudio.isValidID(r.id) else {
            return .failure(
                Problem(message: "--id '\(r.id)': an id is 3–64 characters of lowercase a–z, 0–9 and '-', not starting with '-'"))
        }
        if let licenceProblem = SPDXLicense.problem(r.license) {
            return .failure(Problem(message: "--license: \(licenceProblem)"))
        }
        if let problem = Self.optionProblem(r) { return .failure(Problem(message: problem)) }
        if manifest.references.contains(where: { $0.id == r.id }) {
            return .failure(
                Problem(
                    message:
                        "the manifest already has a reference '\(r.id)'; choose another --id (or `soundtrace catalog remove \(r.id)` first)"
                ))
        }
        let parameters = EngineParameters()
        let loaded: RecordingLoader.Loaded
        do {
            loaded = try RecordingLoader.load(path: r.file, parameters: parameters, checksum: true)
        } catch {
            return .failure(Problem(message: "\(error)"))
        }
        let audio = loaded.audio
        guard audio.samples.count >= CatalogBuildCommand.minimumSeconds * parameters.sampleRate else {
            return .failure(
                Problem(
                    message:
                        "\(r.file) lasts \(Text.seconds(audio.durationSeconds)) s; a catalog recording must last at least \(CatalogBuildCommand.minimumSeconds) s to be recognized and verified"
                ))
        }
        let level = Self.rmsDecibels(audio.samples)
        guard level >= Self.minimumLevelDecibels else {
            return .failure(
                Problem(
                    message:
                        "\(r.file) is nearly silent (\(Text.oneDecimal(level)) dBFS RMS; at least \(Int(Self.minimumLevelDecibels)) dBFS is needed): is it the right file?"
                ))
        }
        let duplicateCheck: String
        switch checkNotInCatalog(audio, sha256: loaded.sourceSHA256, file: r.file, catalogPath: r.catalogPath) {
        case let .success(note): duplicateCheck = note
        case let .failure(problem): return .failure(problem)
        }
        if let same = Self.sameFileInManifest(loaded.sourceSHA256, file: r.file, manifest: manifest) {
            return .failure(
                Problem(
                    message:
                        "\(r.file) is the same file as the manifest's recording '\(same.id)' (\(same.title)), which the catalog file may not hold yet (soundtrace catalog build adds it); a catalog holds each recording once"
                ))
        }
        // Where the manifest will find it: in place when it already lies in the manifest's folder.
        let folder = FileSystem.absolute(manifest.folder.isEmpty ? "." : manifest.folder)
        let source = FileSystem.absolute(r.file)
        var sourceFile: String
        var copyTo: String? = nil
        if source.hasPrefix(folder + "/") {
            sourceFile = String(source.dropFirst(folder.count + 1))
        } else {
            sourceFile = "audio/\(r.id).wav"
            copyTo = folder + "/" + sourceFile
            if FileSystem.exists(copyTo!) {
                return .failure(Problem(message: "\(copyTo!) already exists; move it away or add that file instead"))
            }
        }
        let entry = ReferenceAudio(
            id: r.id, title: r.title, creator: r.creator, license: r.license, sourceFile: sourceFile, metadata: r.metadata)
        let text = ManifestWriter.text(version: manifest.version, references: manifest.references + [entry])
        // Validate every field before copying anything.
        do {
            _ = try Manifest.parse(Array(text.utf8), path: r.manifestPath)
        } catch {
            return .failure(Problem(message: "\(error)"))
        }
        if let copyTo {
            do {
                try FileSystem.makeFolders(FileSystem.directory(of: copyTo))
                try FileSystem.copy(r.file, to: copyTo)
            } catch {
                return .failure(Problem(message: "could not copy \(r.file) to \(copyTo): \(error); the manifest was left unchanged"))
            }
        }
        do {
            let written = try ManifestWriter.write(text, to: r.manifestPath)
            return .success(
                Done(
                    sourceFile: sourceFile, copied: copyTo != nil, seconds: audio.durationSeconds,
                    references: written.references.count, duplicateCheck: duplicateCheck))
        } catch {
            if let copyTo { unlink(copyTo) }
            return .failure(Problem(message: "\(error)"))
        }
    }

    /// What the manifest would refuse in the options' text, said in the options' terms and found
    /// before the recording is read and matched (which takes seconds).
    static func optionProblem(_ r: Request) -> String? {
        for (option, field, value) in [
            ("--title", "title", r.title), ("--creator", "creator", r.creator), ("--license", "license", r.license)
        ] {
            if value.unicodeScalars.allSatisfy(\.properties.isWhitespace) { return "\(option) needs a value, not only spaces" }
            if let problem = Manifest.textProblem(value, field: field) { return "\(option) \(problem)" }
        }
        guard r.metadata.count <= 32 else { return "--meta was given \(r.metadata.count) times; at most 32" }
        for (number, entry) in zip(1..., r.metadata) {
            // Named by position: a key with a control character is not echoed to the terminal.
            guard entry.key.count <= 64 else { return "--meta #\(number): a key is 1–64 characters, this one \(entry.key.count)" }
            if let problem = Manifest.metadataProblem(key: entry.key, value: entry.value) { return "--meta #\(number) \(problem)" }
        }
        return nil
    }

    /// The manifest's reference whose recording has these bytes: recordings added since the last
    /// build are not in the catalog file yet. Only files of the same size are read and hashed.
    static func sameFileInManifest(_ sha256: [UInt8], file: String, manifest: Manifest) -> ReferenceAudio? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return manifest.references.first { reference in
            var other = stat()
            let path = FileSystem.join(manifest.folder, reference.sourceFile)
            guard stat(path, &other) == 0, other.st_size == info.st_size else { return false }
            return (try? RecordingStream.sha256(path: path)) == sha256
        }
    }

    /// Refuses the same file or the same sound already in the catalog file: excerpts of the new
    /// recording are matched against it, as a visitor's microphone would be. A missing catalog
    /// file (a first recording) is only noted.
    private func checkNotInCatalog(_ audio: PCMAudio, sha256: [UInt8], file: String, catalogPath: String) -> Result<String, Problem> {
        let catalog: Catalog
        do {
            catalog = try CatalogFile.load(path: catalogPath)
        } catch {
            if case .notFound = error { return .success("no catalog file at \(catalogPath) yet: not checked for duplicates") }
            return .failure(Problem(message: "\(error) (the duplicate check needs it; pass --catalog PATH)"))
        }
        if let same = catalog.references.first(where: { $0.sourceSHA256 == sha256 }) {
            return .failure(Problem(message: "\(file) is the same file as catalog recording '\(same.audio.id)' (\(same.audio.title))"))
        }
        let rate = audio.sampleRate
        let length = 8 * rate
        for share in [1, 2, 3] {
            let start = max(0, min(audio.samples.count - length, audio.samples.count * share / 4 - length / 2))
            let excerpt = PCMAudio(sampleRate: rate, samples: Array(audio.samples[start..<min(audio.samples.count, start + length)]))
            let verdict: Verdict
            do {
                verdict = try FileMatching.match(excerpt, catalog: catalog)
            } catch {
                return .failure(Problem(message: "\(error) (the duplicate check reads it)"))
            }
            guard verdict.isMatch, let index = verdict.candidate else { continue }
            let existing = catalog.references[index].audio
            let at = catalog.parameters.seconds(forFrames: verdict.offsetFrames)
            return .failure(
                Problem(
                    message:
                        "\(file) sounds like catalog recording '\(existing.id)' (\(existing.title)): its excerpt at \(Text.seconds(Double(start) / Double(rate))) s matched it at \(Text.seconds(at)) s; a catalog holds each recording once"
                ))
        }
        return .success("not in \(catalogPath): 3 excerpts matched none of its \(catalog.references.count) recordings")
    }

    static func rmsDecibels(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return -Double.infinity }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        let rms = (sum / Double(samples.count)).squareRoot()
        return rms > 0 ? 20 * log10(rms / 32768) : -Double.infinity
    }
}

/// What to do after the manifest changed: the same steps for add and remove.
enum CatalogEditSteps {
    static func lines(manifest: String, catalog: String) -> [String] {
        // verify finds the recordings beside the catalog unless told where the manifest's are.
        let audioRoot = FileSystem.directory(of: manifest)
        let verifyRoot = FileSystem.directory(of: catalog) == audioRoot ? "" : " --audio-root \(audioRoot.isEmpty ? "." : audioRoot)"
        return [
            "soundtrace catalog build --manifest \(manifest) --out \(catalog)",
            "soundtrace catalog verify --catalog \(catalog)\(verifyRoot)",
            "install it where soundtraced reads it (e.g. sudo install -m 0644 \(catalog) /usr/share/soundtrace/soundtrace.catalog), then: sudo systemctl reload soundtraced"
        ]
    }
}
