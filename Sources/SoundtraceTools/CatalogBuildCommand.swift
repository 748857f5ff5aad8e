import SoundtraceFingerprint

/// `soundtrace catalog build`: owned recordings + manifest → one catalog file, reproducibly.
struct CatalogBuildCommand {
    static let usage = """
        usage: soundtrace catalog build [--manifest PATH] [--out PATH]

        Builds the catalog file from the manifest and the recordings it names. Building twice, or on
        another machine, gives a byte-identical file.

        options:
          --manifest PATH   the manifest (default: catalog/manifest.json)
          --out PATH        the catalog file to write (default: catalog/soundtrace.catalog)
          -h, --help        show this help
        """

    /// Shorter recordings could neither be recognized reliably nor verified by `catalog verify`.
    static let minimumSeconds = 6

    let console: Console

    func run(_ args: [String]) -> ExitCode {
        let parsed: Arguments
        do {
            parsed = try Arguments(args, valueOptions: ["--manifest", "--out"], flagOptions: ["-h", "--help"])
        } catch {
            console.error("soundtrace catalog build: \(error)\n\n\(Self.usage)")
            return .usage
        }
        if parsed.flag("-h") || parsed.flag("--help") {
            console.print(Self.usage)
            return .success
        }
        guard parsed.positional.isEmpty else {
            console.error("soundtrace catalog build: unexpected argument \(parsed.positional[0])\n\n\(Self.usage)")
            return .usage
        }
        let manifestPath = parsed.value("--manifest") ?? "catalog/manifest.json"
        let outPath = parsed.value("--out") ?? "catalog/soundtrace.catalog"
        let parameters = EngineParameters()

        let manifest: Manifest
        do {
            manifest = try Manifest.load(path: manifestPath)
        } catch {
            console.error("soundtrace catalog build: \(error)")
            return .inputError
        }

        var inputs: [CatalogBuilder.Input] = []
        var results: [ReferenceFingerprint] = []
        let total = manifest.references.count
        for (i, reference) in manifest.references.enumerated() {
            let path = FileSystem.join(manifest.folder, reference.sourceFile)
            console.progress("[\(i + 1)/\(total)] \(reference.id): reading \(reference.sourceFile)")
            do {
                let loaded = try RecordingLoader.load(path: path, parameters: parameters, checksum: true)
                guard loaded.audio.samples.count >= Self.minimumSeconds * parameters.sampleRate else {
                    console.endProgress()
                    console.error(
                        "soundtrace catalog build: reference '\(reference.id)': \(path) lasts \(Text.seconds(loaded.audio.durationSeconds)) s; a catalog recording must last at least \(Self.minimumSeconds) s to be recognized and verified"
                    )
                    return .inputError
                }
                let input = CatalogBuilder.Input(audio: reference, samples: loaded.audio, sourceSHA256: loaded.sourceSHA256)
                console.progress("[\(i + 1)/\(total)] \(reference.id): fingerprinting \(Text.seconds(loaded.audio.durationSeconds)) s")
                let result = try CatalogBuilder.fingerprint(of: input, parameters: parameters)
                inputs.append(input)
                results.append(result)
            } catch {
                console.endProgress()
                console.error("soundtrace catalog build: reference '\(reference.id)': \(error)")
                return .inputError
            }
        }
        console.endProgress()
        do {
            let bytes = try CatalogBuilder.encode(version: manifest.version, inputs: inputs, fingerprints: results, parameters: parameters)
            try write(bytes, to: outPath)
            let catalog = try CatalogFile.decode(bytes, path: outPath, parameters: parameters)
            let seconds = inputs.reduce(0.0) { $0 + $1.samples.durationSeconds }
            let landmarks = results.reduce(0) { $0 + $1.landmarks.count }
            console.print(
                "built \(outPath): \(total) references, \(Text.seconds(seconds)) s of audio, \(landmarks) landmarks, \(bytes.count) bytes")
            console.print("catalog version \(manifest.version), sha256 \(catalog.manifest.hash)")
            return .success
        } catch {
            console.error("soundtrace catalog build: \(error)")
            return .inputError
        }
    }

    private func write(_ bytes: [UInt8], to path: String) throws(CatalogError) {
        do {
            try FileSystem.replace(path, with: bytes)
        } catch {
            throw .cannotWrite(path: path, reason: error.description)
        }
    }
}
