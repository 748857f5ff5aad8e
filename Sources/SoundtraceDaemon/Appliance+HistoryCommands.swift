import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceStore

extension Appliance {
    /// The history, or the error every history command answers when the database is unavailable.
    private func historyStoreLocked(_ command: String) -> Result<HistoryStore, ProtocolError> {
        guard let store else {
            return .failure(ProtocolError(.system, command: command, "the history is unavailable: \(storeProblem ?? "not open")"))
        }
        return .success(store)
    }

    private func systemError(_ command: String, _ error: HistoryError) -> CommandOutcome {
        DaemonLog.error("\(command): \(error)")
        return .error(ProtocolError(.system, command: command, error.description))
    }

    private func eventId(_ text: String, command: String) -> Result<Int64, ProtocolError> {
        guard let id = Int64(text), id > 0 else {
            return .failure(ProtocolError(.badArguments, command: command, "\"\(text)\" is not a recognition id; ids are positive whole numbers (see `history`)"))
        }
        return .success(id)
    }

    private func favoriteIdsLocked(_ store: HistoryStore) -> Set<String> {
        Set(((try? store.favorites()) ?? []).map(\.referenceId))
    }

    private func eventPairs(_ event: RecognitionEvent, favorite: Bool, detailed: Bool) -> [(String, String)] {
        let snapshot = event.snapshot
        var pairs: [(String, String)] = [
            ("id", String(event.id)), ("session", event.sessionId), ("reference", event.referenceId),
            ("title", snapshot.title), ("creator", snapshot.creator), ("matched_at", ProtocolValues.time(event.matchedAt)),
            ("offset", ProtocolValues.seconds(Int(event.offsetMilliseconds))), ("score", String(event.score)),
            ("favorite", ProtocolValues.yesNo(favorite)),
        ]
        if detailed {
            pairs += [("license", snapshot.license), ("source_file", snapshot.sourceFile), ("catalog_hash", snapshot.catalogHash)]
            pairs += snapshot.metadata.map { ("meta", "\($0.key)=\($0.value)") }
        }
        return pairs
    }

    func historyLocked(_ rangeText: String?) -> CommandOutcome {
        let range: ProtocolRange
        switch ProtocolRange.parse(rangeText, command: "history") {
        case let .success(parsed): range = parsed
        case let .failure(error): return .error(error)
        }
        let store: HistoryStore
        switch historyStoreLocked("history") {
        case let .success(s): store = s
        case let .failure(error): return .error(error)
        }
        do {
            let events = try store.events(skipping: range.start, limit: range.end - range.start)
            let favorites = favoriteIdsLocked(store)
            return .reply(events.flatMap { eventPairs($0, favorite: favorites.contains($0.referenceId), detailed: false) })
        } catch {
            return systemError("history", error)
        }
    }

    private func lookUpLocked(_ text: String, command: String) -> Result<(HistoryStore, RecognitionEvent), ProtocolError> {
        let id: Int64
        switch eventId(text, command: command) {
        case let .success(value): id = value
        case let .failure(error): return .failure(error)
        }
        let store: HistoryStore
        switch historyStoreLocked(command) {
        case let .success(s): store = s
        case let .failure(error): return .failure(error)
        }
        do {
            guard let event = try store.event(id: id) else {
                return .failure(ProtocolError(.notFound, command: command, "no recognition \(id); `history` lists them"))
            }
            return .success((store, event))
        } catch {
            DaemonLog.error("\(command): \(error)")
            return .failure(ProtocolError(.system, command: command, error.description))
        }
    }

    func showLocked(_ text: String) -> CommandOutcome {
        switch lookUpLocked(text, command: "show") {
        case let .success((store, event)):
            return .reply(eventPairs(event, favorite: favoriteIdsLocked(store).contains(event.referenceId), detailed: true))
        case let .failure(error):
            return .error(error)
        }
    }

    func shareLocked(_ text: String) -> CommandOutcome {
        switch lookUpLocked(text, command: "share") {
        case let .success((_, event)):
            let s = event.snapshot
            let line = "Heard \"\(s.title)\" by \(s.creator) (\(s.license)), \(ProtocolValues.shortSeconds(Int(event.offsetMilliseconds))) s in, on \(ProtocolValues.humanTime(event.matchedAt)) - recognized offline by Soundtrace."
            return .reply([("text", line)])
        case let .failure(error):
            return .error(error)
        }
    }

    func deleteLocked(_ text: String) -> CommandOutcome {
        let id: Int64
        switch eventId(text, command: "delete") {
        case let .success(value): id = value
        case let .failure(error): return .error(error)
        }
        let store: HistoryStore
        switch historyStoreLocked("delete") {
        case let .success(s): store = s
        case let .failure(error): return .error(error)
        }
        do {
            try store.deleteEvent(id: id)
        } catch {
            if case .notFound = error {
                return .error(ProtocolError(.notFound, command: "delete", "no recognition \(id); `history` lists them"))
            }
            return systemError("delete", error)
        }
        DaemonLog.info("deleted recognition \(id)")
        changedLocked(.history)
        return .reply([("deleted", String(id))])
    }

    func favoriteLocked(_ reference: String, on: Bool) -> CommandOutcome {
        let command = on ? "favorite" : "unfavorite"
        guard ReferenceAudio.isValidID(reference) else {
            return .error(ProtocolError(.badArguments, command: command, "\"\(reference)\" is not a reference id (3–64 lowercase letters, digits and hyphens; see `catalog`)"))
        }
        let store: HistoryStore
        switch historyStoreLocked(command) {
        case let .success(s): store = s
        case let .failure(error): return .error(error)
        }
        do {
            // Unfavoriting works for references the catalog no longer has. Favoriting needs a
            // reference the box can name: one in the catalog, or, while no catalog is usable, one
            // the history has recognized (its metadata was kept with the recognition).
            let isFavorite = try store.isFavorite(referenceId: reference)
            if on, !isFavorite, catalogSlot.catalog?.reference(id: reference) == nil {
                guard catalogSlot.catalog == nil else {
                    return .error(ProtocolError(.notFound, command: command, "no reference \"\(reference)\" in the catalog; `catalog` lists them"))
                }
                guard try store.hasEvent(referenceId: reference) else {
                    return .error(ProtocolError(.notFound, command: command, "no usable catalog to look \"\(reference)\" up in (\(catalogSlot.problem ?? "none loaded")), and the history has never recognized it; favorite it from `history` once the catalog is back"))
                }
            }
            if !on, !isFavorite, catalogSlot.catalog?.reference(id: reference) == nil {
                return .error(ProtocolError(.notFound, command: command, "\"\(reference)\" is neither a favorite nor in the catalog"))
            }
            let changed = try store.setFavorite(referenceId: reference, on)
            if changed { changedLocked(.favorites) }
            return .reply([("reference", reference), ("favorite", ProtocolValues.yesNo(on)), ("changed", ProtocolValues.yesNo(changed))])
        } catch {
            return systemError(command, error)
        }
    }

    func favoritesLocked() -> CommandOutcome {
        let store: HistoryStore
        switch historyStoreLocked("favorites") {
        case let .success(s): store = s
        case let .failure(error): return .error(error)
        }
        do {
            return .reply(try store.favorites().flatMap { favorite -> [(String, String)] in
                var pairs = [("reference", favorite.referenceId)]
                if let title = catalogSlot.catalog?.reference(id: favorite.referenceId)?.audio.title { pairs.append(("title", title)) }
                pairs.append(("favorited_at", ProtocolValues.time(favorite.favoritedAt)))
                return pairs
            })
        } catch {
            return systemError("favorites", error)
        }
    }
}
