import SoundtraceFingerprint
import SoundtracePlatform

/// The bundled catalog, used when no --catalog is given.
let defaultCatalogPath = "catalog/soundtrace.catalog"

/// Where the Debian package installs the bundled catalog (docs/DEPLOY.md).
let installedCatalogPath = "/usr/share/soundtrace/soundtrace.catalog"

/// The bundled manifest, used when no --manifest is given.
let defaultManifestPath = "catalog/manifest.json"

/// The catalog file that goes with a manifest when the command line names none: `soundtrace.catalog`
/// in the manifest's folder (for the default manifest, the default catalog). Commands that edit or
/// build a manifest elsewhere then check and write the catalog beside it, not one in the working folder.
func catalogFileBeside(manifest: String) -> String {
    FileSystem.join(FileSystem.directory(of: manifest), "soundtrace.catalog")
}

/// Loads the catalog named on the command line (or the default), reporting a failure on the console.
/// Commands that analyse audio against it check everything (`.full`: the content hash reads the
/// whole file, about 70 instructions a byte), `match` beside its first query
/// (`loadCatalogForMatching`); commands that only show the header and references check the
/// structure, which reads a few hundred KB however big the catalog is.
func loadCatalog(_ path: String?, command: String, console: Console, check: CatalogFile.Check = .full) -> Catalog? {
    do {
        return try CatalogFile.load(path: path ?? defaultCatalogPath, check: check)
    } catch {
        // The default is relative: outside a source checkout it names nothing, and rebuilding
        // there is not what an installed box needs.
        let hint =
            path == nil && error == .notFound(path: defaultCatalogPath)
            ? "; without --catalog it is looked for in the current folder (an installed package's is \(installedCatalogPath))" : ""
        console.error("soundtrace \(command): \(error)\(hint)")
        return nil
    }
}

/// Loads the catalog for `match`: its structure now, and its content hash on a second thread while
/// the command reads and matches its audio. Hashing first and matching after made a one-shot match
/// against a big catalog mostly hashing (61 % of a 10 s query against 2.1 hours, 1.7 s at 100 hours:
/// docs/BENCHMARKS.md, "Catalog scale"). No verdict may be printed before `catalogContentFails`
/// has said the check passed.
func loadCatalogForMatching(_ path: String?, command: String, console: Console) -> Catalog? {
    guard let catalog = loadCatalog(path, command: command, console: console, check: .structure) else { return nil }
    // Detached: a command that ends first simply exits. Without a thread the check runs when
    // `catalogContentFails` asks for it.
    _ = WorkerThread(detached: true) { try? catalog.verifyContent() }
    return catalog
}

/// Waits for the catalog's content check (or runs it) and reports a failure as a failed load
/// would: true when nothing may be printed from the catalog.
func catalogContentFails(_ catalog: Catalog, command: String, console: Console) -> Bool {
    do {
        try catalog.verifyContent()
        return false
    } catch {
        console.error("soundtrace \(command): \(error)")
        return true
    }
}
