import SoundtraceCore

extension Appliance {
    /// A short press: listen, or cancel while listening (the console's Enter, later the GPIO button).
    func buttonPressed() {
        locked {
            if cancelSessionLocked() != nil { return }
            let previous = engine.session?.token
            if case let .failure(error) = startSessionLocked(), engine.session?.token == previous {
                // No session was recorded (no catalog, shutting down), so nothing showed the reason yet.
                showIndicatorLocked(.failure, detail: error.message)
            }
        }
    }

    /// A held button: toggles calm mode, keeps it in the history store's settings (it survives
    /// restarts), confirms it on the indicator and tells `idle` clients that the state changed.
    func toggleCalmMode() {
        locked {
            calm.toggle()
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
            DaemonLog.info("calm mode \(word) (button held)")
            indicator?.calmModeChanged(calm)
            changedLocked(.state)
        }
    }

    /// Swaps in a freshly loaded catalog. A session in flight finishes on the catalog it started
    /// with (its recognizer holds it). A bad file keeps the previous catalog when there is one.
    func replaceCatalog(_ slot: CatalogSlot) {
        locked {
            if slot.catalog != nil {
                let changed = slot.hash != catalogSlot.hash
                catalogSlot = slot
                catalogWarning = nil
                DaemonLog.info(
                    "catalog reloaded from \(slot.path): \(slot.catalog?.references.count ?? 0) references, hash \(slot.hash ?? "")\(changed ? "" : " (unchanged)")"
                )
            } else if catalogSlot.catalog != nil {
                catalogWarning = "reloading \(slot.path) failed, still serving the previous catalog: \(slot.problem ?? "")"
                DaemonLog.error(catalogWarning ?? "")
            } else {
                catalogSlot = slot
                DaemonLog.error("catalog still unavailable: \(slot.problem ?? "")")
            }
            changedLocked(.catalog)
        }
    }

    /// Ends a listening session as canceled, closes the device and refuses new sessions.
    func shutdown() {
        locked {
            shuttingDown = true
            _ = cancelSessionLocked()
            waitForCaptureClosedLocked()
        }
    }

    /// The status reply's pairs, for the log and systemd's status line.
    var statusSummary: String {
        locked {
            let catalog = catalogSlot.catalog.map { "catalog \($0.references.count) references" } ?? "no usable catalog"
            let history = store == nil ? "history unavailable" : "history open"
            return "\(engine.listeningToken == nil ? "idle" : "listening"); \(catalog); \(history)"
        }
    }
}
