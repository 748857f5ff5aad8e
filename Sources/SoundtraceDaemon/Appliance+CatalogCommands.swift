import Glibc
import SoundtraceFingerprint
import SoundtraceProtocol

extension ApplianceState {
    private mutating func loadedCatalog(_ command: String) throws(ProtocolError) -> Catalog {
        guard let catalog = catalogSlot.catalog else {
            throw ProtocolError(.unavailable, command: command, "no usable catalog: \(catalogSlot.problem ?? "none loaded")")
        }
        return catalog
    }

    mutating func catalog(_ rangeText: String?) throws(ProtocolError) -> CommandOutcome {
        let range = try ProtocolRange.parse(rangeText, command: "catalog").get()
        let catalog = try loadedCatalog("catalog")
        let page = catalog.references.dropFirst(range.start).prefix(range.end - range.start)
        return .reply(
            page.flatMap { reference -> [(String, String)] in
                let audio = reference.audio
                return [
                    ("reference", audio.id), ("title", audio.title), ("creator", audio.creator), ("license", audio.license),
                    ("duration", ProtocolValues.seconds(CatalogSlot.durationMilliseconds(reference, parameters: catalog.parameters)))
                ]
            })
    }

    mutating func reference(_ id: String) throws(ProtocolError) -> CommandOutcome {
        // A malformed id is a bad argument, as for `favorite`, not a reference the catalog lacks.
        guard ReferenceAudio.isValidID(id) else {
            throw ProtocolError(
                .badArguments, command: "reference",
                "\"\(id)\" is not a reference id (3–64 lowercase letters, digits and hyphens; see `catalog`)")
        }
        let catalog = try loadedCatalog("reference")
        guard let reference = catalog.reference(id: id) else {
            throw ProtocolError(.notFound, command: "reference", "no reference \"\(id)\" in the catalog; `catalog` lists them")
        }
        let audio = reference.audio
        var pairs: [(String, String)] = [
            ("reference", audio.id), ("title", audio.title), ("creator", audio.creator), ("license", audio.license),
            ("duration", ProtocolValues.seconds(CatalogSlot.durationMilliseconds(reference, parameters: catalog.parameters))),
            ("source_file", audio.sourceFile)
        ]
        pairs += audio.metadata.map { ("meta", "\($0.key)=\($0.value)") }
        let favorite = (try? store?.isFavorite(referenceId: audio.id)) ?? false
        pairs.append(("favorite", ProtocolValues.yesNo(favorite)))
        return .reply(pairs)
    }

    /// What the catalog covers and how an owner adds recordings, as lines for people.
    mutating func guide() -> CommandOutcome {
        var lines: [String] = []
        if let catalog = catalogSlot.catalog {
            let licenses = Set(catalog.references.map(\.audio.license)).sorted().joined(separator: ", ")
            lines.append(
                "This appliance recognizes \(catalog.references.count) recording\(catalog.references.count == 1 ? "" : "s") (catalog version \(catalog.manifest.version), licenses: \(licenses)):"
            )
            for reference in catalog.references.prefix(ProtocolRange.maxPage) {
                lines.append("  \(reference.audio.title) - \(reference.audio.creator) [\(reference.audio.id)]")
            }
            if catalog.references.count > ProtocolRange.maxPage {
                lines.append("  … and \(catalog.references.count - ProtocolRange.maxPage) more (`catalog 100:`)")
            }
        } else {
            lines.append("No catalog is loaded: \(catalogSlot.problem ?? "none")")
        }
        lines +=
            [
                "Press the button (or run `soundtrace listen`) while a recording plays; it listens up to \(environment.settings.windowMilliseconds / 1000) s.",
                "It only knows the recordings above: anything else is an honest \"no match\"."
            ] + Self.addingSteps(catalogPath: catalogSlot.path)
        return .reply(lines.map { ("line", $0) })
    }

    /// The owner's steps for the catalog path this daemon reads. An absolute path (a deployed box):
    /// build in the checkout, then `install` the file there (a new file renamed over the old one).
    /// A relative path (a daemon run from the checkout): build straight onto it, since `catalog
    /// build` replaces the file by renaming too; installing a file onto itself would do nothing.
    static func addingSteps(catalogPath path: String) -> [String] {
        let add =
            "To add a recording you may use, in the folder holding catalog/manifest.json: `soundtrace catalog add FILE --id ID --title TITLE --creator CREATOR --license SPDX`,"
        let reload =
            "then `sudo systemctl reload soundtraced` (or, not under systemd, `pkill -HUP -x soundtraced`); history and favorites are kept."
        if path.hasPrefix("/") {
            return [
                add,
                "`soundtrace catalog build` and `soundtrace catalog verify`, then put it in place with `sudo install -m 0644 catalog/soundtrace.catalog \(path)` (never copy over it in place),",
                reload
            ]
        }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let folder = getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
        let absolute = folder + "/" + path
        return [
            add,
            "`soundtrace catalog build --out \(absolute)` (it replaces the file this daemon reads) and `soundtrace catalog verify --catalog \(absolute)`,",
            reload
        ]
    }
}
