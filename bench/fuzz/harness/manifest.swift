// The catalog manifest (catalog/manifest.json), as `soundtrace catalog build` reads it:
// Manifest.parse checks the JSON and every field before any recording is opened.
@testable import SoundtraceFingerprint
@testable import SoundtraceTools

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    do {
        let manifest = try Manifest.parse(bytes, path: "catalog/manifest.json")
        // What the builder relies on: 1–256 references with valid, unique ids and relative paths.
        let ids = manifest.references.map(\.id)
        expect((1...256).contains(ids.count) && Set(ids).count == ids.count && ids.allSatisfy(ReferenceAudio.isValidID),
                     "accepted references the catalog cannot hold")
        expect(manifest.references.allSatisfy { !$0.sourceFile.hasPrefix("/") && !$0.sourceFile.split(separator: "/").contains("..") },
                     "accepted a recording outside the manifest's folder")
        _ = manifest.folder
    } catch {
        expect(error.description.hasPrefix("manifest catalog/manifest.json: "), "a refusal that does not name the manifest")
    }
    return 0
}
