import CLinux
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform

/// `soundtrace match FILE...`: one verdict per recording file.
struct MatchCommand {
    static let usage = """
        usage: soundtrace match [--catalog PATH] [--json [--explain]] FILE...
               soundtrace match --device PCM [--seconds N] [--catalog PATH] [--json]

        Tells, for each WAV file, which catalog recording it is and where in it the file starts, or
        that it is not in the catalog. Files: RIFF WAV, PCM 16/24/32-bit or 32-bit float, mono or
        stereo, 8–48 kHz; the first 30 s of each file are analysed, and a longer file's verdict
        says so. With --device, listens once on an ALSA capture device instead: until a
        confident match, or for at most N seconds of audio.

        options:
          --catalog PATH    the catalog file (default: catalog/soundtrace.catalog)
          --json            one JSON object per line and file: file, outcome (match, noMatch or failed),
                            referenceId, title, creator, offsetSeconds, score (and error when failed)
          --explain         with --json, add the matcher's evidence for tuning and diagnosis:
                            candidateId and candidateOffsetSeconds (the best alignment, which for a
                            noMatch is NOT a result), chanceLevel, queryPeaks, queryLandmarks,
                            signatureBits and signatureScore (the signature check, when the
                            landmark hits alone did not decide; null otherwise),
                            placesSignatureScore (the next strongest places of the recording
                            with the most hits, when the first checks failed),
                            wideSignatureScore (the wider net, when those failed too), the
                            whole-mix checks (README.md) and steadyHits, driftingHits and
                            driftPerMille (hits at one offset, and along the best line of a
                            tempo change, for an alignment that passed every other check)
          --device PCM      listen on this ALSA capture device (e.g. default, plughw:1,0); JSON adds
                            device, sessionId, heardSeconds and, for failures, errorCode and error
          --seconds N       the listening window, 3–30 seconds of audio (default 10)
          -h, --help        show this help

        exit status: 0 when every file was read or the session ended with a match or no match,
        2 for a wrong command line, 3 when the catalog or a file could not be used, 4 when the
        capture device failed, 7 when the results could not be written (a full disk), 130 when
        listening was canceled with Ctrl-C.
        """

    let console: Console

    /// How this command answers a malformed command line or -h.
    var commandUsage: CommandUsage { CommandUsage(command: "match", text: Self.usage, console: console) }

    /// Each file's matcher grows its vote counters to a few megabytes and frees them at the end.
    /// Depending on where they lay in the heap, glibc gave that memory back after one file and the
    /// next faulted it in again, page by page: about 1,800 page faults and 2–3 ms a file against a
    /// 10-hour catalog (docs/BENCHMARKS.md, "Catalog scale"). A batch keeps its freed memory for the
    /// next file instead; its peak RSS stays that of one file (measured there).
    static func keepHeapBetweenFiles() {
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
    }

    func run(_ args: [String]) -> ExitCode {
        let parsed: Arguments
        switch commandUsage.parse(args, valueOptions: ["--catalog", "--device", "--seconds"], flagOptions: ["--json", "--explain"]) {
        case let .run(arguments): parsed = arguments
        case let .done(code): return code
        }
        if let device = parsed.value("--device") { return live(device: device, parsed) }
        guard parsed.value("--seconds") == nil else {
            return commandUsage.refuse("--seconds sets the listening window of --device; a file's first 30 s are matched")
        }
        guard !parsed.positional.isEmpty else {
            return commandUsage.refuse("name at least one WAV file to match")
        }
        guard let catalog = loadCatalogForMatching(parsed.value("--catalog"), command: "match", console: console) else {
            return .inputError
        }
        let json = parsed.flag("--json")
        let explain = parsed.flag("--explain")
        guard !explain || json else {
            return commandUsage.refuse("--explain adds fields to --json output; pass both")
        }
        if parsed.positional.count > 1 { Self.keepHeapBetweenFiles() }
        var status = ExitCode.success
        var contentChecked = false
        for file in parsed.positional {
            let line: String
            var failed = false
            do {
                let audio = try RecordingLoader.loadQuery(path: file, parameters: catalog.parameters)
                let verdict = try FileMatching.match(audio, catalog: catalog)
                let cut = audio.samples.count > catalog.parameters.maxQuerySeconds * catalog.parameters.sampleRate
                line =
                    json
                    ? Self.json(file: file, verdict: verdict, catalog: catalog, explain: explain)
                    : Self.text(file: file, verdict: verdict, catalog: catalog)
                        + (cut ? " — only its first \(catalog.parameters.maxQuerySeconds) s were analysed" : "")
            } catch {
                failed = true
                line =
                    json
                    ? Text.jsonObject([
                        ("file", Text.json(file)), ("outcome", Text.json("failed")),
                        ("referenceId", "null"), ("title", "null"), ("creator", "null"),
                        ("offsetSeconds", "null"), ("score", "0"), ("error", Text.json("\(error)"))
                    ]) : "soundtrace match: \(error)"
            }
            // The catalog's content check ran beside the first file: nothing is printed before it passed.
            if !contentChecked {
                if catalogContentFails(catalog, command: "match", console: console) { return .inputError }
                contentChecked = true
            }
            if failed {
                status = .inputError
                if json { console.print(line) } else { console.error(line) }
            } else {
                console.print(line)
            }
            // What the rest would print could not be written either.
            if console.outputEnded != nil { break }
        }
        return status
    }

    private func live(device: String, _ parsed: Arguments) -> ExitCode {
        guard parsed.positional.isEmpty else {
            return commandUsage.refuse("--device listens live; do not also name files (\(parsed.positional[0]))")
        }
        guard !parsed.flag("--explain") else {
            return commandUsage.refuse("--explain is for files; live results carry their evidence already")
        }
        guard !device.isEmpty, device.count <= 200, !device.unicodeScalars.contains(where: { $0.value < 32 }) else {
            return commandUsage.refuse("--device needs an ALSA device name such as default or plughw:1,0")
        }
        let settings: SessionSettings
        switch Self.listeningWindow(parsed.value("--seconds")) {
        case let .success(window): settings = window
        case let .failure(problem):
            return commandUsage.refuse(problem.message)
        }
        guard let catalog = loadCatalogForMatching(parsed.value("--catalog"), command: "match", console: console) else {
            return .inputError
        }
        return LiveMatchCommand(console: console).run(
            source: ALSAAudioSource(device: device), catalog: catalog,
            settings: settings, json: parsed.flag("--json"))
    }

    static func json(file: String, verdict: Verdict, catalog: Catalog, explain: Bool = false) -> String {
        var pairs: [(String, String)] = [("file", Text.json(file)), ("outcome", Text.json(verdict.outcome.rawValue))]
        if verdict.isMatch, let index = verdict.candidate {
            let audio = catalog.references[index].audio
            pairs += [
                ("referenceId", Text.json(audio.id)), ("title", Text.json(audio.title)),
                ("creator", Text.json(audio.creator)), ("license", Text.json(audio.license)),
                ("offsetSeconds", Text.seconds(catalog.parameters.seconds(forFrames: verdict.offsetFrames)))
            ]
        } else {
            pairs += [("referenceId", "null"), ("title", "null"), ("creator", "null"), ("offsetSeconds", "null")]
        }
        pairs += [
            ("score", String(verdict.score)), ("runnerUpScore", String(verdict.runnerUpScore)),
            ("speedPercent", speedPercent(verdict, catalog, signed: false)),
            ("heard", Text.json(heard(verdict, parameters: catalog.parameters)))
        ]
        if explain {
            pairs += [
                ("candidateId", verdict.candidate.map { Text.json(catalog.references[$0].audio.id) } ?? "null"),
                ("candidateOffsetSeconds", Text.seconds(catalog.parameters.seconds(forFrames: verdict.offsetFrames))),
                ("chanceLevel", Text.seconds(Double(verdict.chanceLevelQ8) / 256)),
                ("queryPeaks", String(verdict.queryPeaks)), ("queryLandmarks", String(verdict.queryLandmarks)),
                ("signatureBits", verdict.signatureBits.map(String.init) ?? "null"),
                ("signatureScore", verdict.signatureScore.map { Text.seconds($0) } ?? "null"),
                ("signatureErrorRate", verdict.signatureErrorRate.map { Text.seconds($0) } ?? "null"),
                ("placesSignatureScore", verdict.placesSignatureScore.map { Text.seconds($0) } ?? "null"),
                ("wideSignatureScore", verdict.wideSignatureScore.map { Text.seconds($0) } ?? "null"),
                ("alignmentBits", verdict.alignmentBits.map(String.init) ?? "null"),
                ("alignmentErrorRate", verdict.alignmentErrorRate.map { Text.seconds($0) } ?? "null"),
                ("alignmentScore", verdict.alignmentScore.map { Text.seconds($0) } ?? "null"),
                ("containmentShortfall", verdict.containmentShortfallDecibels.map { Text.seconds($0) } ?? "null"),
                ("containmentCells", verdict.containmentCells.map(String.init) ?? "null"),
                ("containmentAlignedCells", verdict.containmentAlignedCells.map(String.init) ?? "null"),
                ("containmentClearance", verdict.containmentClearanceDecibels.map { Text.seconds($0) } ?? "null"),
                ("containmentSurplus", verdict.containmentSurplusDecibels.map { Text.seconds($0) } ?? "null"),
                ("containmentNoiseMisfit", verdict.containmentNoiseMisfit.map { Text.seconds($0) } ?? "null"),
                ("containmentLowShortfall", verdict.containmentLowShortfallDecibels.map { Text.seconds($0) } ?? "null"),
                ("containmentLowHeardRange", verdict.containmentLowHeardRangeDecibels.map { Text.seconds($0) } ?? "null"),
                ("containmentGainSteadied", verdict.containmentCells == nil ? "null" : String(verdict.containmentGainSteadied)),
                ("steadyHits", verdict.tempoDrift.map { String($0.steadyHits) } ?? "null"),
                ("driftingHits", verdict.tempoDrift.map { String($0.driftingHits) } ?? "null"),
                ("driftPerMille", verdict.tempoDrift.map { String($0.slopePerMille) } ?? "null")
            ]
        }
        return Text.jsonObject(pairs)
    }

    static func text(file: String, verdict: Verdict, catalog: Catalog) -> String {
        guard verdict.isMatch, let index = verdict.candidate else {
            return "\(file): no match (\(heard(verdict, parameters: catalog.parameters)))"
        }
        let audio = catalog.references[index].audio
        let offset = Text.seconds(catalog.parameters.seconds(forFrames: verdict.offsetFrames))
        return "\(file): match \(audio.id) \"\(audio.title)\" by \(audio.creator) at \(offset) s "
            + "(score \(verdict.score), next best \(verdict.runnerUpScore), speed \(speedPercent(verdict, catalog)) %, license \(audio.license))"
    }

    /// Whether anything was heard at all, so that silence is told apart from unknown audio, and
    /// audio too short for the whole-mix check (`containmentMinCells` level frames) from audio
    /// that is not in the catalog.
    static func heard(_ verdict: Verdict, parameters p: EngineParameters) -> String {
        if verdict.queryPeaks == 0 { return "silence or too quiet" }
        if verdict.isMatch { return "catalog recording" }
        let neededFrames = p.containmentMinCells * p.levelStepFrames
        if verdict.framesHeard < neededFrames || verdict.containmentCells.map({ $0 < p.containmentMinCells }) == true {
            return "too short to decide: a match needs about \(Text.oneDecimal(Self.shortestMatchSeconds(p))) s of audio or more"
        }
        return "heard audio that is not in the catalog"
    }

    /// About the least audio a match can rest on: the whole-mix check's level frames, plus the
    /// frames the transform and the levels' smoothing fill before the first one.
    static func shortestMatchSeconds(_ p: EngineParameters) -> Double {
        p.seconds(forFrames: (p.containmentMinCells + 1) * p.levelStepFrames + p.fftSize / p.hopSize)
    }

    /// Speed change in percent with one decimal; `signed` adds a "+" for people (JSON numbers cannot have one).
    static func speedPercent(_ verdict: Verdict, _ catalog: Catalog, signed: Bool = true) -> String {
        let permille = verdict.speedStep * 1000 / catalog.parameters.speedDenominator
        let sign = permille > 0 ? (signed ? "+" : "") : permille < 0 ? "-" : ""
        return "\(sign)\(abs(permille) / 10).\(abs(permille) % 10)"
    }

    struct WindowProblem: Error { let message: String }

    /// The listening window `--seconds` asks for (the default when absent), or why it cannot be one:
    /// `match --device` and `explain --device` take it alike.
    static func listeningWindow(_ given: String?) -> Result<SessionSettings, WindowProblem> {
        let text = given ?? String(SessionSettings.defaultWindowSeconds)
        guard let seconds = Int(text) else {
            return .failure(WindowProblem(message: "--seconds needs a whole number of seconds, not '\(text)'"))
        }
        do {
            return .success(try SessionSettings(windowSeconds: seconds))
        } catch {
            return .failure(WindowProblem(message: "\(error)"))
        }
    }
}
