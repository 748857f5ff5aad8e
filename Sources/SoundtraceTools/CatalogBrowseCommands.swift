import SoundtraceFingerprint

/// `soundtrace catalog list` and `soundtrace catalog show ID`: the offline catalog browser.
struct CatalogBrowseCommands {
    static let listUsage = """
        usage: soundtrace catalog list [--catalog PATH]

        Lists the recordings in the catalog file: id, duration, title and creator.
        Reads the file's header and references only; `soundtrace catalog verify` checks the rest.

        options:
          --catalog PATH    the catalog file (default: catalog/soundtrace.catalog)
          -h, --help        show this help
        """

    static let showUsage = """
        usage: soundtrace catalog show [--catalog PATH] ID

        Shows everything the catalog file holds about one recording.
        Reads the file's header and references only; `soundtrace catalog verify` checks the rest.

        options:
          --catalog PATH    the catalog file (default: catalog/soundtrace.catalog)
          -h, --help        show this help
        """

    let console: Console

    func list(_ args: [String]) -> ExitCode {
        let usage = CommandUsage(command: "catalog list", text: Self.listUsage, console: console)
        let parsed: Arguments
        switch usage.parse(args, valueOptions: ["--catalog"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        guard parsed.positional.isEmpty else {
            return usage.refuse("unexpected argument \(parsed.positional[0])")
        }
        // The structure only: a 100-hour catalog lists at once instead of after its 250 MB are hashed.
        guard let catalog = loadCatalog(parsed.value("--catalog"), command: "catalog list", console: console, check: .structure) else {
            return .inputError
        }
        console.print(
            "catalog version \(catalog.manifest.version), \(catalog.references.count) recordings, sha256 \(catalog.manifest.hash) (as the file states it; `soundtrace catalog verify` checks the contents)"
        )
        for reference in catalog.references {
            let a = reference.audio
            console.print("\(a.id)  \(duration(reference, catalog))  \"\(a.title)\" by \(a.creator)")
        }
        return .success
    }

    func show(_ args: [String]) -> ExitCode {
        let usage = CommandUsage(command: "catalog show", text: Self.showUsage, console: console)
        let parsed: Arguments
        switch usage.parse(args, valueOptions: ["--catalog"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        guard parsed.positional.count == 1 else {
            return usage.refuse("name exactly one recording id (see: soundtrace catalog list)")
        }
        guard let catalog = loadCatalog(parsed.value("--catalog"), command: "catalog show", console: console, check: .structure) else {
            return .inputError
        }
        let id = parsed.positional[0]
        guard let reference = catalog.reference(id: id) else {
            console.error("soundtrace catalog show: no recording '\(id)' in this catalog; list the ids with: soundtrace catalog list")
            return .inputError
        }
        let a = reference.audio
        console.print("id: \(a.id)")
        console.print("title: \(a.title)")
        console.print("creator: \(a.creator)")
        console.print("license: \(a.license)")
        console.print("source: \(a.sourceFile)")
        console.print("duration: \(duration(reference, catalog))")
        console.print("source sha256: \(SHA256.hex(reference.sourceSHA256))")
        for entry in a.metadata { console.print("\(entry.key): \(entry.value)") }
        console.print(
            "catalog: version \(catalog.manifest.version), sha256 \(catalog.manifest.hash) (as the file states it; `soundtrace catalog verify` checks the contents)"
        )
        return .success
    }

    private func duration(_ reference: CatalogReference, _ catalog: Catalog) -> String {
        let total = Int(catalog.parameters.seconds(forFrames: reference.durationFrames).rounded())
        let seconds = total % 60
        return "\(total / 60):\(seconds < 10 ? "0" : "")\(seconds)"
    }
}
