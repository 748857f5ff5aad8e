import SoundtraceFingerprint
import SoundtraceProtocol
import SoundtraceStore

extension ApplianceState {
    /// The history, or the error every history command answers when the database is unavailable.
    private mutating func historyStore(_ command: String) throws(ProtocolError) -> HistoryStore {
        guard let store else {
            throw ProtocolError(.system, command: command, "the history is unavailable: \(storeProblem ?? "not open")")
        }
        return store
    }

    /// A database failure, logged for the owner and answered to the client.
    private mutating func systemError(_ command: String, _ error: HistoryError) -> ProtocolError {
        DaemonLog.error("\(command): \(error)")
        return ProtocolError(.system, command: command, error.description)
    }

    /// Runs one database call, turning its failure into the `system` error the client is answered with.
    private mutating func reading<T>(_ command: String, _ call: () throws(HistoryError) -> T) throws(ProtocolError) -> T {
        do {
            return try call()
        } catch {
            throw systemError(command, error)
        }
    }

    private mutating func eventId(_ text: String, command: String) throws(ProtocolError) -> Int64 {
        guard let id = Int64(text), id > 0 else {
            throw ProtocolError(
                .badArguments, command: command, "\"\(text)\" is not a recognition id; ids are positive whole numbers (see `history`)")
        }
        return id
    }

    private mutating func favoriteIds(_ store: HistoryStore) -> Set<String> {
        Set(((try? store.favorites()) ?? []).map(\.referenceId))
    }

    private mutating func eventPairs(_ event: RecognitionEvent, favorite: Bool, detailed: Bool) -> [(String, String)] {
        let snapshot = event.snapshot
        var pairs: [(String, String)] = [
            ("id", String(event.id)), ("session", event.sessionId), ("reference", event.referenceId),
            ("title", snapshot.title), ("creator", snapshot.creator), ("matched_at", ProtocolValues.time(event.matchedAt)),
            ("offset", ProtocolValues.seconds(Int(event.offsetMilliseconds))), ("score", String(event.score)),
            ("favorite", ProtocolValues.yesNo(favorite))
        ]
        if detailed {
            pairs += [("license", snapshot.license), ("source_file", snapshot.sourceFile), ("catalog_hash", snapshot.catalogHash)]
            pairs += snapshot.metadata.map { ("meta", "\($0.key)=\($0.value)") }
        }
        return pairs
    }

    mutating func history(_ rangeText: String?) throws(ProtocolError) -> CommandOutcome {
        let range = try ProtocolRange.parse(rangeText, command: "history").get()
        let store = try historyStore("history")
        do {
            let events = try store.events(skipping: range.start, limit: range.end - range.start)
            let favorites = favoriteIds(store)
            return .reply(events.flatMap { eventPairs($0, favorite: favorites.contains($0.referenceId), detailed: false) })
        } catch {
            throw systemError("history", error)
        }
    }

    private mutating func lookUp(_ text: String, command: String) throws(ProtocolError) -> (HistoryStore, RecognitionEvent) {
        let id = try eventId(text, command: command)
        let store = try historyStore(command)
        let found: RecognitionEvent?
        do {
            found = try store.event(id: id)
        } catch {
            throw systemError(command, error)
        }
        guard let event = found else {
            throw ProtocolError(.notFound, command: command, "no recognition \(id); `history` lists them")
        }
        return (store, event)
    }

    mutating func show(_ text: String) throws(ProtocolError) -> CommandOutcome {
        let (store, event) = try lookUp(text, command: "show")
        return .reply(eventPairs(event, favorite: favoriteIds(store).contains(event.referenceId), detailed: true))
    }

    mutating func share(_ text: String) throws(ProtocolError) -> CommandOutcome {
        let (_, event) = try lookUp(text, command: "share")
        let s = event.snapshot
        let line =
            "Heard \"\(s.title)\" by \(s.creator) (\(s.license)), \(ProtocolValues.shortSeconds(Int(event.offsetMilliseconds))) s in, on \(ProtocolValues.humanTime(event.matchedAt)) - recognized offline by Soundtrace."
        return .reply([("text", line)])
    }

    mutating func delete(_ text: String) throws(ProtocolError) -> CommandOutcome {
        let id = try eventId(text, command: "delete")
        let store = try historyStore("delete")
        do {
            try store.deleteEvent(id: id)
        } catch {
            if case .notFound = error {
                throw ProtocolError(.notFound, command: "delete", "no recognition \(id); `history` lists them")
            }
            throw systemError("delete", error)
        }
        DaemonLog.info("deleted recognition \(id)")
        for index in recent.indices where recent[index].eventId == id {
            recent[index].eventId = nil
            recent[index].deletedFromHistory = true
        }
        if lastFinished?.eventId == id {
            lastFinished?.eventId = nil
            lastFinished?.deletedFromHistory = true
        }
        markChanged(.history)
        return .reply([("deleted", String(id))])
    }

    mutating func favorite(_ reference: String, on: Bool) throws(ProtocolError) -> CommandOutcome {
        let command = on ? ProtocolCommand.favorite.name : ProtocolCommand.unfavorite.name
        guard ReferenceAudio.isValidID(reference) else {
            throw ProtocolError(
                .badArguments, command: command,
                "\"\(reference)\" is not a reference id (3–64 lowercase letters, digits and hyphens; see `catalog`)")
        }
        let store = try historyStore(command)
        // Unfavoriting works for references the catalog no longer has. Favoriting needs a
        // reference the box can name: one in the catalog, or, while no catalog is usable, one
        // the history has recognized (its metadata was kept with the recognition).
        let isFavorite = try reading(command) { () throws(HistoryError) in try store.isFavorite(referenceId: reference) }
        if on, !isFavorite, catalogSlot.catalog?.reference(id: reference) == nil {
            guard catalogSlot.catalog == nil else {
                throw ProtocolError(.notFound, command: command, "no reference \"\(reference)\" in the catalog; `catalog` lists them")
            }
            guard try reading(command, { () throws(HistoryError) in try store.hasEvent(referenceId: reference) }) else {
                throw ProtocolError(
                    .notFound, command: command,
                    "no usable catalog to look \"\(reference)\" up in (\(catalogSlot.problem ?? "none loaded")), and the history has never recognized it; favorite it from `history` once the catalog is back"
                )
            }
        }
        if !on, !isFavorite, catalogSlot.catalog?.reference(id: reference) == nil {
            throw ProtocolError(.notFound, command: command, "\"\(reference)\" is neither a favorite nor in the catalog")
        }
        let changed = try reading(command) { () throws(HistoryError) in try store.setFavorite(referenceId: reference, on) }
        if changed { markChanged(.favorites) }
        return .reply([("reference", reference), ("favorite", ProtocolValues.yesNo(on)), ("changed", ProtocolValues.yesNo(changed))])
    }

    mutating func favorites() throws(ProtocolError) -> CommandOutcome {
        let store = try historyStore("favorites")
        do {
            return .reply(
                try store.favorites().flatMap { favorite -> [(String, String)] in
                    var pairs = [("reference", favorite.referenceId)]
                    if let title = catalogSlot.catalog?.reference(id: favorite.referenceId)?.audio.title { pairs.append(("title", title)) }
                    pairs.append(("favorited_at", ProtocolValues.time(favorite.favoritedAt)))
                    return pairs
                })
        } catch {
            throw systemError("favorites", error)
        }
    }
}
