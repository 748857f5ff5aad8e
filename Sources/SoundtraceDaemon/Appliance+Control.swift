import SoundtraceCore
import SoundtraceFingerprint

extension Appliance {
    /// A short press: listen, or cancel while listening (the console's Enter, later the GPIO button).
    func buttonPressed() {
        state.withLock { $0.buttonPressed() }
    }

    /// A held button: toggles calm mode, keeps it in the history store's settings (it survives
    /// restarts), confirms it on the indicator and tells `idle` clients that the state changed.
    func toggleCalmMode() {
        state.withLock { $0.toggleCalmMode() }
    }

    /// Swaps in a freshly loaded catalog. A session in flight finishes on the catalog it started
    /// with (its recognizer holds it). A bad file keeps the previous catalog when there is one.
    func replaceCatalog(_ slot: CatalogSlot) {
        state.withLock { $0.replaceCatalog(slot) }
    }

    /// The background check found that `catalog`'s content does not match its hash: if it is still
    /// the one served, it is served no more, as if it had failed to load (`status` shows why,
    /// `listen` is refused with the reason). A session in flight fails at its next snapshot with
    /// `catalogCheckFailed` (its recognizer asks the catalog: `FingerprintRecognizer`), never
    /// naming a match from it.
    func catalogContentFailed(_ catalog: Catalog, _ error: CatalogError) {
        state.withLock { $0.catalogContentFailed(catalog, error) }
    }

    /// The background check found `catalog`'s content sound.
    func catalogContentVerified(_ catalog: Catalog) {
        state.withLock { $0.catalogContentVerified(catalog) }
    }

    /// Ends a listening session as canceled, refuses new sessions and returns once the capture
    /// device is closed (a start deferred until then is refused as the device closes), or after
    /// `longestCaptureCloseOnStopMilliseconds` when a read that does not return holds the capture
    /// thread: a stop must not wait for systemd to kill the daemon. The session has ended by then,
    /// so that thread writes nothing more to the history.
    func shutdown() {
        state.withLock { state in
            state.shuttingDown = true
            _ = state.cancelSession()
            state.dropPendingOpen()
        }
        if !runningCaptures.waitForNone(atMostMilliseconds: environment.longestCaptureCloseOnStopMilliseconds) {
            DaemonLog.warning(
                "capture device '\(environment.device)' was not closed within \(ProtocolValues.seconds(environment.longestCaptureCloseOnStopMilliseconds)) s of the stop (a read that does not return); stopping without waiting for it"
            )
        }
    }

    /// The state in one line, for the log and systemd's status line. A method, not a property: it
    /// takes the state's lock, so it must not be called from inside `state.withLock`.
    func statusSummary() -> String {
        state.withLock { state in
            let catalog = state.catalogSlot.catalog.map { "catalog \($0.references.count) references" } ?? "no usable catalog"
            let history = state.store == nil ? "history unavailable" : "history open"
            return "\(state.sessionUnderway ? "listening" : "idle"); \(catalog); \(history)"
        }
    }
}

extension ApplianceState {
    mutating func buttonPressed() {
        if cancelSession() != nil { return }
        if mustDeferStart {
            // A second press before the device has closed asks for the same start.
            if !deferredStarts.contains(.button) { deferredStarts.append(.button) }
            return
        }
        startFromButton()
    }

    /// The button's start; a refusal that recorded no session is shown on the indicator.
    mutating func startFromButton() {
        let previous = engine.session?.token
        if case let .failure(error) = startSession(for: .button), engine.session?.token == previous {
            // No session was recorded (no catalog, shutting down), so nothing showed the reason yet.
            showIndicator(.failure, detail: error.message)
        }
    }

    mutating func toggleCalmMode() {
        setCalmMode(!calm, cause: "button held")
    }

    /// Sets calm mode, keeps it in the history store's settings, confirms it on the indicator and
    /// tells `idle` clients (and the MQTT link) that the state changed.
    mutating func setCalmMode(_ on: Bool, cause: String) {
        calm = on
        let word = calm ? "on" : "off"
        if let store {
            do {
                try store.setCalmMode(calm)
            } catch {
                DaemonLog.error("calm mode \(word) until soundtraced restarts: saving it failed: \(error)")
            }
        } else {
            DaemonLog.warning(
                "calm mode \(word) until soundtraced restarts: the history (where it is kept) is unavailable: \(storeProblem ?? "")")
        }
        DaemonLog.info("calm mode \(word) (\(cause))")
        indicator?.calmModeChanged(calm)
        markChanged(.state)
    }

    mutating func catalogContentFailed(_ catalog: Catalog, _ error: CatalogError) {
        guard catalogSlot.catalog === catalog else {
            DaemonLog.error("a catalog no longer served failed its content check: \(error)")
            return
        }
        let failed = CatalogSlot.unusable(path: catalogSlot.path, error)
        if let fallback = catalogFallback, fallback.rewrittenInPlace() == nil {
            // A reload whose file turns out damaged keeps the kiosk on the catalog it had.
            catalogSlot = fallback
            catalogWarning =
                "reloading \(failed.path) failed its content check, still serving the previous catalog: \(failed.problem ?? "")"
            DaemonLog.error(catalogWarning ?? "")
        } else {
            catalogSlot = failed
            catalogWarning = nil
            DaemonLog.error("catalog unusable: \(catalogSlot.problem ?? "")")
        }
        catalogFallback = nil
        markChanged(.catalog)
    }

    mutating func catalogContentVerified(_ catalog: Catalog) {
        verifiedCatalog = catalog
        // The served catalog is sound: the one kept in case it was not can go (its mapping with it).
        if catalogSlot.catalog === catalog { catalogFallback = nil }
    }

    mutating func replaceCatalog(_ slot: CatalogSlot) {
        if slot.catalog != nil {
            let sameHash = slot.hash == catalogSlot.hash
            if let current = catalogSlot.catalog, current === verifiedCatalog { catalogFallback = catalogSlot }
            catalogSlot = slot
            catalogWarning = nil
            DaemonLog.info(
                "catalog reloaded from \(slot.path): \(slot.catalog?.references.count ?? 0) references, hash \(slot.hash ?? "")\(sameHash ? " (the hash the previous file stated; its content is checked next)" : "")"
            )
        } else if catalogSlot.catalog != nil {
            catalogWarning = "reloading \(slot.path) failed, still serving the previous catalog: \(slot.problem ?? "")"
            DaemonLog.error(catalogWarning ?? "")
        } else {
            catalogSlot = slot
            DaemonLog.error("catalog still unavailable: \(slot.problem ?? "")")
        }
        markChanged(.catalog)
    }
}
