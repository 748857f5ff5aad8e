import SoundtraceFingerprint

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
/// Commands that match audio check everything (`.full`: the content hash reads the whole file, about
/// 70 instructions a byte); commands that only show the header and references check the structure,
/// which reads a few hundred KB however big the catalog is.
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
