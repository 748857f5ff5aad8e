import SoundtraceFingerprint

/// `soundtrace catalog remove ID`: one recording out of the manifest. Its audio file stays (other
/// references or other manifests may use it; deleting the owner's files is not this command's
/// place): the command says where it is.
struct CatalogRemoveCommand {
    static let usage = """
        usage: soundtrace catalog remove ID [--manifest PATH] [--catalog PATH] [--json]

        Removes a recording from the manifest (its audio file is kept). Then build, verify and install
        the catalog (the command prints the steps).

        options:
          --manifest PATH   the manifest (default: catalog/manifest.json)
          --catalog PATH    the catalog file the printed steps build (default: soundtrace.catalog beside the manifest)
          --json            one JSON object on stdout
          -h, --help        show this help
        """

    let console: Console

    /// How this command answers a malformed command line or -h.
    var commandUsage: CommandUsage { CommandUsage(command: "catalog remove", text: Self.usage, console: console) }

    func run(_ args: [String]) -> ExitCode {
        let parsed: Arguments
        switch commandUsage.parse(args, valueOptions: ["--manifest", "--catalog"], flagOptions: ["--json"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        guard parsed.positional.count == 1 else {
            let problem =
                parsed.positional.isEmpty ? "name the reference to remove" : "one reference at a time (got \(parsed.positional.count))"
            return commandUsage.refuse(problem)
        }
        let id = parsed.positional[0]
        let manifestPath = parsed.value("--manifest") ?? defaultManifestPath
        let catalogPath = parsed.value("--catalog") ?? catalogFileBeside(manifest: manifestPath)
        func fail(_ message: String) -> ExitCode {
            console.error("soundtrace catalog remove: \(message)")
            return .inputError
        }
        let manifest: Manifest
        do {
            manifest = try Manifest.load(path: manifestPath)
        } catch {
            return fail("\(error)")
        }
        guard let removed = manifest.references.first(where: { $0.id == id }) else {
            let known = manifest.references.map(\.id).sorted()
            return fail(
                "the manifest has no reference '\(id)'; it has \(known.prefix(10).joined(separator: ", "))\(known.count > 10 ? ", …" : "")")
        }
        guard manifest.references.count > 1 else {
            return fail("'\(id)' is the manifest's only reference, and a catalog needs at least one; add another first")
        }
        let remaining = manifest.references.filter { $0.id != id }
        let written: Manifest
        do {
            written = try ManifestWriter.write(ManifestWriter.text(version: manifest.version, references: remaining), to: manifestPath)
        } catch {
            return fail("\(error)")
        }
        let kept = FileSystem.join(manifest.folder, removed.sourceFile)
        let steps = CatalogEditSteps.lines(manifest: manifestPath, catalog: catalogPath)
        if parsed.flag("--json") {
            console.print(
                Text.jsonObject([
                    ("removed", Text.json(id)), ("manifest", Text.json(manifestPath)), ("keptFile", Text.json(kept)),
                    ("references", String(written.references.count)),
                    ("nextSteps", "[" + steps.map(Text.json).joined(separator: ", ") + "]")
                ]))
        } else {
            console.print("removed \(id) from \(manifestPath) (\(written.references.count) references left); its audio stays at \(kept)")
            console.print("next:\n" + steps.map { "  " + $0 }.joined(separator: "\n"))
        }
        return .success
    }
}
