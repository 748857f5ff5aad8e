import SoundtraceFingerprint

/// The bundled catalog, used when no --catalog is given.
let defaultCatalogPath = "catalog/soundtrace.catalog"

/// Loads the catalog named on the command line (or the default), reporting a failure on the console.
func loadCatalog(_ path: String?, command: String, console: Console) -> Catalog? {
    do {
        return try CatalogFile.load(path: path ?? defaultCatalogPath)
    } catch {
        console.error("soundtrace \(command): \(error)")
        return nil
    }
}
