/// `catalog [START:END]`, `reference` and `guide`: the catalog soundtraced has loaded. (The
/// offline `catalog build|verify|list|show|add|remove` work on files instead and need no daemon.)
enum CatalogDaemonCommands {
    static let catalog = DaemonCommand(
        name: "catalog",
        summary: """
            With no subcommand, or with a range such as 0:20, asks soundtraced for the references of
            the catalog it has loaded, in catalog order: a page START:END (at most 100; default 0:100).
            Works without a microphone. The subcommands below work on files instead.
            """,
        argument: .optionalRange,
        jsonHelp: "one JSON object: references, an array of {referenceId, title, creator, license, durationSeconds}",
        details: """
            offline subcommands (read the catalog file here; no daemon needed):
              soundtrace catalog build     build the catalog file from catalog/manifest.json and its recordings
              soundtrace catalog verify    check the catalog file and that every recording matches itself
              soundtrace catalog list      list the recordings in the catalog file
              soundtrace catalog show ID   show one recording's metadata from the catalog file
              soundtrace catalog add FILE  add a recording to the manifest (--id, --title, --creator, --license)
              soundtrace catalog remove ID remove a recording from the manifest (its audio file is kept)
            Run `soundtrace catalog SUBCOMMAND --help` for their options.
            """,
        body: runCatalog)

    static let reference = DaemonCommand(
        name: "reference",
        summary: "Shows one reference of the daemon's catalog: its metadata, source file and whether it is a favorite.",
        argument: .reference,
        jsonHelp: "one JSON object with the reference's fields and a metadata object",
        body: runReference)

    static let guide = DaemonCommand(
        name: "guide",
        summary: "Prints the catalog guide: what the catalog covers and how to add owned recordings.",
        argument: .none,
        jsonHelp: "one JSON object: lines, an array of strings",
        body: runGuide)

    private static func runCatalog(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let records = try c.request("catalog", c.arguments).records(startingWith: "reference")
        if c.json {
            c.console.print(ReplyJSON.list("references", records))
        } else if records.isEmpty {
            c.console.print(
                c.arguments.isEmpty
                    ? "The daemon's catalog has no references — see `soundtrace guide` to add recordings."
                    : "No references in \(c.arguments[0]); the catalog is shorter.")
        } else {
            let width = (records.compactMap { $0.value("reference")?.count }.max() ?? 0) + 2
            for r in records {
                var text = (r.value("reference") ?? "?").padding(width)
                if let duration = r.value("duration") { text += Self.minutes(duration) + "  " }
                text += c.style.bold("\"\(r.value("title") ?? "?")\"")
                if let creator = r.value("creator") { text += " by \(creator)" }
                if let license = r.value("license") { text += " (\(license))" }
                c.console.print(text)
            }
        }
        return .success
    }

    /// `205.250` seconds → `3:25`, like `catalog list`; a value that is not seconds is shown as sent.
    static func minutes(_ seconds: String) -> String {
        guard let value = Double(seconds), value >= 0, value < 1e9 else { return seconds }
        let total = Int(value.rounded())
        let s = total % 60
        return "\(total / 60):\(s < 10 ? "0" : "")\(s)"
    }

    private static func runReference(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let reply = try c.request("reference", c.arguments)
        c.console.print(c.json ? ReplyJSON.object(reply) : Fields.text(reply, style: c.style))
        return .success
    }

    private static func runGuide(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let lines = try c.request("guide", []).values("line")
        c.console.print(c.json ? "{\"lines\": [" + lines.map(Text.json).joined(separator: ", ") + "]}" : lines.joined(separator: "\n"))
        return .success
    }
}
