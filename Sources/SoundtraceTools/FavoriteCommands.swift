/// `favorite`, `unfavorite` and `favorites`: references marked on the box.
enum FavoriteCommands {
    static let favorite = DaemonCommand(
        name: "favorite",
        summary: "Marks a catalog reference as a favorite (ids from `soundtrace catalog` or `soundtrace history`).",
        argument: .reference,
        jsonHelp: "one JSON object: referenceId, favorite, changed",
        body: { (c) throws(ClientError) in try mark(c, "favorite") })

    static let unfavorite = DaemonCommand(
        name: "unfavorite",
        summary: "Removes a reference from the favorites.",
        argument: .reference,
        jsonHelp: "one JSON object: referenceId, favorite, changed",
        body: { (c) throws(ClientError) in try mark(c, "unfavorite") })

    static let favorites = DaemonCommand(
        name: "favorites",
        summary: "Lists the favorite references, most recently marked first.",
        argument: .none,
        jsonHelp: "one JSON object: favorites, an array of {referenceId, title, favoritedAt}",
        body: runFavorites)

    private static func mark(_ c: DaemonContext, _ command: String) throws(ClientError) -> ExitCode {
        let reply = try c.request(command, c.arguments)
        if c.json {
            c.console.print(ReplyJSON.object(reply))
            return .success
        }
        let reference = reply.value("reference") ?? c.arguments[0]
        let isFavorite = reply.value("favorite") == "yes"
        let changed = reply.value("changed") != "no"
        switch (isFavorite, changed) {
        case (true, true): c.console.print("\(reference) is now a favorite.")
        case (true, false): c.console.print("\(reference) was already a favorite.")
        case (false, true): c.console.print("\(reference) is no longer a favorite.")
        case (false, false): c.console.print("\(reference) was not a favorite.")
        }
        return .success
    }

    private static func runFavorites(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let records = try c.request("favorites", []).records(startingWith: "reference")
        if c.json {
            c.console.print(ReplyJSON.list("favorites", records))
        } else if records.isEmpty {
            c.console.print("No favorites yet — mark one with `soundtrace favorite REFERENCE` (ids from `soundtrace catalog`).")
        } else {
            for r in records {
                var text = c.style.notice("★") + " " + (r.value("reference") ?? "?")
                if let title = r.value("title") { text += "  " + c.style.bold("\"\(title)\"") }
                if let when = r.value("favorited_at") { text += "  " + c.style.dim("since \(TimeText.readable(when))") }
                c.console.print(text)
            }
        }
        return .success
    }
}
