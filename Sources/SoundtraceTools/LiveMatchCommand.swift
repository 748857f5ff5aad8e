import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform

/// `soundtrace match --device PCM`: one live listening session on an ALSA capture device.
struct LiveMatchCommand {
    let console: Console

    /// Runs a session on `source` and prints its outcome. `installInterruptHandler` is false in tests.
    func run(
        source: AudioSource, catalog: Catalog, settings: SessionSettings, json: Bool,
        installInterruptHandler: Bool = true
    ) -> ExitCode {
        let session = LiveSession(source: source, catalog: catalog, settings: settings)
        // Ctrl-C cancels the session (device closed, outcome printed) instead of killing the process.
        let restoreInterrupts = installInterruptHandler ? InterruptSignal.routeProcessInterrupts { session.cancel() } : nil
        if !json { console.progress("listening on \(source.device) for up to \(settings.windowMilliseconds / 1000) s… (Ctrl-C cancels)") }
        let ended = session.run(token: SessionToken(UInt64(SystemClock.wallMilliseconds())))
        console.endProgress()
        restoreInterrupts?()
        // The catalog's content was checked while listening (`loadCatalogForMatching`); a match
        // waited for it already, any other outcome waits here: nothing is printed before it passed.
        // A session the catalog failed says so itself.
        switch ended.state {
        case .failed(.catalogRewritten), .failed(.catalogCheckFailed): break
        default: if catalogContentFails(catalog, command: "match", console: console) { return .inputError }
        }
        console.print(json ? Self.json(ended, device: source.device) : Self.text(ended, device: source.device))
        switch ended.state {
        case .matched, .noMatch: return .success
        case .canceled: return .canceled
        // The catalog, not the device: exit 3, "the catalog or a file could not be used".
        case .failed(.catalogRewritten), .failed(.catalogCheckFailed): return .inputError
        case .failed, .listening: return .deviceFailed
        }
    }

    static func text(_ session: RecognitionSession, device: String) -> String {
        switch session.state {
        case let .matched(result):
            let r = result.reference
            return "\(device): match \(r.id) \"\(r.title)\" by \(r.creator) at \(Text.seconds(Double(result.offsetMilliseconds) / 1000)) s "
                + "(score \(result.score), next best \(result.runnerUpScore), heard \(Text.seconds(Double(result.heardMilliseconds) / 1000)) s, license \(r.license))"
        case let .noMatch(reason):
            return "\(device): no match (\(reason))"
        case .canceled:
            return "\(device): canceled"
        case let .failed(fault):
            return "\(device): failed: \(fault)"
        case .listening:
            return "\(device): still listening"
        }
    }

    static func json(_ session: RecognitionSession, device: String) -> String {
        // The CLI contract names outcomes like `match FILE` does: match, noMatch, canceled, failed.
        let outcome =
            session.state == .listening
            ? "listening"
            : {
                if case .matched = session.state { return "match" }
                return session.state.name
            }()
        var pairs: [(String, String)] = [
            ("device", Text.json(device)), ("sessionId", Text.json(session.id)),
            ("outcome", Text.json(outcome))
        ]
        switch session.state {
        case let .matched(result):
            let r = result.reference
            pairs += [
                ("referenceId", Text.json(r.id)), ("title", Text.json(r.title)), ("creator", Text.json(r.creator)),
                ("license", Text.json(r.license)), ("offsetSeconds", Text.seconds(Double(result.offsetMilliseconds) / 1000)),
                ("score", String(result.score)), ("runnerUpScore", String(result.runnerUpScore)),
                ("heardSeconds", Text.seconds(Double(result.heardMilliseconds) / 1000))
            ]
        case let .noMatch(reason):
            let (name, heard): (String, Int) = {
                switch reason {
                case let .silence(ms): return ("silence", ms)
                case let .notInCatalog(ms): return ("notInCatalog", ms)
                }
            }()
            pairs += [
                ("referenceId", "null"), ("title", "null"), ("creator", "null"), ("offsetSeconds", "null"), ("score", "0"),
                ("reason", Text.json(name)), ("heardSeconds", Text.seconds(Double(heard) / 1000)),
                ("message", Text.json(reason.description))
            ]
        case .canceled, .listening:
            pairs += [("referenceId", "null"), ("title", "null"), ("creator", "null"), ("offsetSeconds", "null"), ("score", "0")]
        case let .failed(fault):
            pairs += [
                ("referenceId", "null"), ("title", "null"), ("creator", "null"), ("offsetSeconds", "null"), ("score", "0"),
                ("errorCode", Text.json(fault.code)), ("error", Text.json(fault.description))
            ]
        }
        return Text.jsonObject(pairs)
    }
}
