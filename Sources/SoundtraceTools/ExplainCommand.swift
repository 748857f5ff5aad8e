import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform

/// `soundtrace explain FILE --svg OUT.svg`: one picture of why a recording was (not) named.
struct ExplainCommand {
    static let usage = """
        usage: soundtrace explain [--catalog PATH] FILE [--svg OUT.svg] [--json]
               soundtrace explain --device PCM [--seconds N] [--catalog PATH] [--svg OUT.svg] [--json]

        Matches FILE (a WAV file) as `match` does and shows why the verdict came out as it did: its
        spectrogram and peaks, the landmark hits of the best candidates over offsets against chance,
        how the frame signatures agreed over time at the deciding alignment, and every check with the
        bar it had to pass. --svg writes all of it as one self-contained SVG; --json prints the same
        data (without the spectrogram's pixels) as one JSON object; without either, the checks as text.
        With --device, one live session as `match --device` runs it (an early match ends it), then the
        same picture of what it heard.

        options:
          --catalog PATH   the catalog file (default: catalog/soundtrace.catalog)
          --device PCM     listen on this ALSA capture device instead of reading a file
          --seconds N      with --device, the longest listening window (default 10)
          --svg OUT.svg    write the picture there
          --json           one JSON object on stdout
          -h, --help       show this help
        """

    let console: Console

    /// How this command answers a malformed command line or -h.
    var commandUsage: CommandUsage { CommandUsage(command: "explain", text: Self.usage, console: console) }

    func run(_ args: [String]) -> ExitCode {
        let parsed: Arguments
        switch commandUsage.parse(args, valueOptions: ["--catalog", "--svg", "--device", "--seconds"], flagOptions: ["--json"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        if let out = parsed.value("--svg"), let problem = OutputTarget.svgRefusal(toReplace: out) {
            console.error("soundtrace explain: \(problem)")
            return .inputError
        }
        if let device = parsed.value("--device") {
            guard parsed.positional.isEmpty else {
                return commandUsage.refuse("a file or --device, not both")
            }
            let settings: SessionSettings
            switch MatchCommand.listeningWindow(parsed.value("--seconds")) {
            case let .success(window): settings = window
            case let .failure(problem):
                return commandUsage.refuse(problem.message)
            }
            guard let catalog = loadCatalogForMatching(parsed.value("--catalog"), command: "explain", console: console) else {
                return .inputError
            }
            return runLive(
                source: ALSAAudioSource(device: device), catalog: catalog, settings: settings,
                svg: parsed.value("--svg"), json: parsed.flag("--json"))
        }
        guard parsed.value("--seconds") == nil else {
            return commandUsage.refuse("--seconds sets the listening window of --device; a file's first 30 s are explained")
        }
        guard parsed.positional.count == 1 else {
            return commandUsage.refuse("name one WAV file (or --device PCM)")
        }
        let file = parsed.positional[0]
        guard let catalog = loadCatalogForMatching(parsed.value("--catalog"), command: "explain", console: console) else {
            return .inputError
        }
        let explanation: QueryExplanation
        do {
            let audio = try RecordingLoader.loadQuery(path: file, parameters: catalog.parameters)
            let matcher = try QueryMatcher(catalog: catalog)
            matcher.recordsForExplanation = true
            var start = 0
            while start < audio.samples.count {
                let end = min(audio.samples.count, start + 1024)
                matcher.push(Array(audio.samples[start..<end]))
                start = end
            }
            matcher.finish()
            explanation = matcher.explanation()
            try catalog.checkUnchangedSinceLoading()
        } catch let error as WAVError {
            console.error("soundtrace explain: \(error)")  // it names the file
            return .inputError
        } catch {
            console.error("soundtrace explain: \(file): \(error)")
            return .inputError
        }
        // Like `match`'s verdict, the picture is drawn from the catalog only once its content check passed.
        if catalogContentFails(catalog, command: "explain", console: console) { return .inputError }
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return show(explanation, catalog: catalog, title: name, file: file, svg: parsed.value("--svg"), json: parsed.flag("--json"))
    }

    /// One live session on `source`, then the picture of what it heard. Ctrl-C ends the session
    /// early and still explains what was heard (exit 130), as does a device that fails midway (exit
    /// 4); before any audio, it explains nothing.
    /// `installInterruptHandler` is false in tests.
    func runLive(
        source: AudioSource, catalog: Catalog, settings: SessionSettings, svg: String?, json: Bool,
        installInterruptHandler: Bool = true
    ) -> ExitCode {
        let session = LiveSession(source: source, catalog: catalog, settings: settings, explains: true)
        let restoreInterrupts = installInterruptHandler ? InterruptSignal.routeProcessInterrupts { session.cancel() } : nil
        if !json {
            console.progress(
                "listening on \(source.device) for up to \(settings.windowMilliseconds / 1000) s… (Ctrl-C ends it and explains what was heard)"
            )
        }
        let ended = session.run(token: SessionToken(UInt64(SystemClock.wallMilliseconds())))
        console.endProgress()
        restoreInterrupts?()
        guard let explanation = session.explanation else {
            console.print(json ? LiveMatchCommand.json(ended, device: source.device) : LiveMatchCommand.text(ended, device: source.device))
            return ended.state == .canceled ? .canceled : .deviceFailed
        }
        switch ended.state {
        case .failed(.catalogRewritten), .failed(.catalogCheckFailed):
            // What the picture would show was read from another file's bytes, or from damaged ones.
            console.error("soundtrace explain: \(LiveMatchCommand.text(ended, device: source.device))")
            return .inputError
        default:
            if catalogContentFails(catalog, command: "explain", console: console) { return .inputError }
        }
        switch ended.state {
        case .failed, .canceled:
            console.error("soundtrace explain: \(LiveMatchCommand.text(ended, device: source.device)); showing what was heard until then")
        default: break
        }
        let shown = show(
            explanation, catalog: catalog, title: "live capture on \(source.device)", file: source.device, svg: svg, json: json)
        guard shown == .success else { return shown }
        // Drawn, but the session did not end as asked: the status says so, as `match --device`'s would.
        switch ended.state {
        case .canceled: return .canceled
        case .failed: return .deviceFailed
        default: return .success
        }
    }

    private func show(_ explanation: QueryExplanation, catalog: Catalog, title: String, file: String, svg out: String?, json: Bool)
        -> ExitCode
    {
        if let out {
            if let problem = Self.write(ExplainSVG.render(explanation, catalog: catalog, title: title), to: out) {
                console.error("soundtrace explain: cannot write \(out): \(problem)")
                return .inputError
            }
        }
        if json {
            console.print(ExplainJSON.object(explanation, catalog: catalog, file: file))
        } else {
            console.print(DecisionChecks.sentence(explanation, catalog: catalog))
            for check in DecisionChecks.of(explanation) {
                let mark = check.passed.map { $0 ? "pass" : "FAIL" } ?? "  - "
                console.print("  \(mark)  \(check.name): \(check.value) (needs \(check.bar))")
            }
            if let out { console.print("picture: \(out)") }
        }
        return .success
    }

    /// Writes beside the target and renames over it, so a reader never sees half a picture
    /// (`FileBytes.writeAtomically`: a link is followed, a device is refused); nil when written.
    static func write(_ text: String, to path: String) -> String? {
        do {
            try FileBytes.writeAtomically(Array(text.utf8), to: path)
            return nil
        } catch {
            switch error {
            case let .system(_, reason): return reason
            case .tooLarge: return "too large"
            }
        }
    }
}

/// The explanation's data as JSON (everything the picture shows but the spectrogram's pixels).
enum ExplainJSON {
    static func object(_ e: QueryExplanation, catalog: Catalog, file: String) -> String {
        let checks = DecisionChecks.of(e).map { c in
            Text.jsonObject([
                ("name", Text.json(c.name)), ("value", Text.json(c.value)), ("bar", Text.json(c.bar)),
                ("passed", c.passed.map { $0 ? "true" : "false" } ?? "null")
            ])
        }
        let candidates = e.candidates.map { c in
            Text.jsonObject([
                ("referenceId", Text.json(c.referenceId)), ("score", String(c.score)),
                ("offsetSeconds", Text.seconds(e.parameters.seconds(forFrames: c.offsetFrames))),
                ("speedStep", String(c.speedStep)),
                ("firstOffsetSeconds", Text.seconds(e.parameters.seconds(forFrames: c.firstOffset))),
                ("secondsPerBar", Text.seconds(e.parameters.seconds(forFrames: c.offsetsPerBar))),
                ("hits", "[" + c.hits.map(String.init).joined(separator: ",") + "]"),
                ("countsCommonHashes", c.countsCommonHashes ? "true" : "false")
            ])
        }
        var pairs: [(String, String)] = [
            ("file", Text.json(file)), ("outcome", Text.json(e.verdict.isMatch ? "match" : "noMatch")),
            ("verdict", Text.json(DecisionChecks.sentence(e, catalog: catalog))),
            ("checks", "[" + checks.joined(separator: ", ") + "]"),
            ("chanceLevel", Text.seconds(e.chanceLevel)),
            ("candidateHits", String(e.candidateHits)), ("forgottenVotes", String(e.forgottenVotes)),
            ("refusedVotes", String(e.refusedVotes)),
            ("candidates", "[" + candidates.joined(separator: ", ") + "]"),
            ("framesPerSecond", Text.seconds(e.framesPerSecond)),
            ("peaks", "[" + e.peaks.map { "[\($0.frame),\($0.bin)]" }.joined(separator: ",") + "]")
        ]
        if let a = e.agreement {
            pairs.append(
                (
                    "agreement",
                    Text.jsonObject([
                        ("referenceId", Text.json(a.referenceId)),
                        ("offsetSeconds", Text.seconds(e.parameters.seconds(forFrames: a.offsetFrames))),
                        ("errors", "[" + a.errors.map(String.init).joined(separator: ",") + "]"),
                        ("weights", "[" + a.weights.map(String.init).joined(separator: ",") + "]")
                    ])
                ))
        } else {
            pairs.append(("agreement", "null"))
        }
        return Text.jsonObject(pairs)
    }
}
