import SoundtraceCore
import SoundtraceFingerprint

/// The fingerprint engine as a session's recognizer: device-rate audio in (resampled to the
/// engine's rate when the device granted another rate), snapshots with catalog metadata out.
/// Short gaps are filled with silence so that offsets stay right; the session engine fails
/// sessions whose gaps are too long to bridge.
public final class FingerprintRecognizer: Recognizer {
    public let sampleRate: Int
    private let catalog: Catalog
    private let matcher: QueryMatcher
    private var resampler: Resampler
    private var nextFrame = 0
    private var finished = false
    /// Confirmations while listening: every match is confirmed by its whole mix (signatures and
    /// containment); one is sampled per half second of audio, from when a confirmation can pass,
    /// and the last sampled one that confirmed a match is kept, if the latest did.
    private var lastCheckFrame = 0
    private var lastConfirmation: (reference: Int, offsetFrames: Int)? = nil

    /// `recordsForExplanation`: keep what `explanation()` shows (`soundtrace explain --device`).
    public init(catalog: Catalog, inputRate: Int, recordsForExplanation: Bool = false) throws {
        self.catalog = catalog
        sampleRate = inputRate
        matcher = try QueryMatcher(catalog: catalog)
        matcher.recordsForExplanation = recordsForExplanation
        resampler = Resampler(inputRate: inputRate, outputRate: catalog.parameters.sampleRate)
    }

    public func push(_ samples: [Int16], atFrame frame: Int) {
        guard !finished else { return }
        if frame > nextFrame {
            matcher.push(resampler.process([Int16](repeating: 0, count: frame - nextFrame)))
        }
        matcher.push(resampler.process(samples))
        nextFrame = max(nextFrame, frame) + samples.count
    }

    public func snapshot(final: Bool) -> RecognizerSnapshot {
        if final && !finished {
            finished = true
            matcher.push(resampler.finish())
            matcher.finish()
        }
        let p = catalog.parameters
        let interval = p.liveCheckIntervalMilliseconds * p.sampleRate / (1000 * p.hopSize)
        let first = p.liveFirstCheckMilliseconds * p.sampleRate / (1000 * p.hopSize)
        let checking = !final && matcher.framesHeard >= max(lastCheckFrame + interval, first)
        let verdict = matcher.verdict()
        var confirmedTwice = false
        if checking {
            lastCheckFrame = matcher.framesHeard
            if verdict.isConfirmedBySignature, let reference = verdict.candidate {
                if let last = lastConfirmation, last.reference == reference,
                    abs(last.offsetFrames - verdict.offsetFrames) <= p.liveSameOffsetFrames
                {
                    confirmedTwice = true
                }
                lastConfirmation = (reference, verdict.offsetFrames)
            } else {
                lastConfirmation = nil
            }
        }
        let reference = verdict.candidate.map { index -> ReferenceSummary in
            let audio = catalog.references[index].audio
            return ReferenceSummary(
                id: audio.id, title: audio.title, creator: audio.creator, license: audio.license,
                sourceFile: audio.sourceFile)
        }
        let trust = catalogTrust(namingAMatch: verdict.isMatch, final: final)
        return RecognizerSnapshot(
            isMatch: verdict.isMatch, reference: reference,
            offsetMilliseconds: verdict.offsetFrames * p.hopSize * 1000 / p.sampleRate,
            score: verdict.score, runnerUpScore: verdict.runnerUpScore, peaks: verdict.queryPeaks,
            heardMilliseconds: verdict.framesHeard * p.hopSize * 1000 / p.sampleRate,
            confirmedTwice: confirmedTwice, waitsForWindow: verdict.isDeepInNoise(p),
            awaitsCatalogCheck: trust.awaitsCheck, fault: trust.fault)
    }

    /// Whether the catalog can be trusted: a fault when its file was rewritten in place since it
    /// was loaded (an fstat and 32 bytes a snapshot) or its content check failed. A match is named
    /// only from a catalog whose content check passed, and soundtraced serves a catalog before its
    /// background check ends (start-up reads its structure only). While that check runs, a match
    /// heard before the window's end waits for it briefly, then awaits it while listening goes
    /// on; the final verdict waits for the check, or runs it if nobody is (`Catalog.verifyContent`).
    private func catalogTrust(namingAMatch: Bool, final: Bool) -> (fault: CaptureFault?, awaitsCheck: Bool) {
        do {
            try catalog.checkUnchangedSinceLoading()
            switch catalog.contentKnownSound {
            case true?:
                return (nil, false)
            case false?:
                try catalog.verifyContent()  // throws the mismatch it found
            case nil:
                guard namingAMatch else { return (nil, false) }
                guard final else {
                    return (nil, try !catalog.contentVerified(waitingAtMost: Self.longestCheckWaitWhileListening))
                }
                try catalog.verifyContent()
            }
            return (nil, false)
        } catch {
            if case let .rewrittenInPlace(path) = error { return (.catalogRewritten(path: path), false) }
            return (.catalogCheckFailed(reason: error.description), false)
        }
    }

    /// How long a snapshot may wait for a content check that is about to end: a check that ends
    /// meanwhile (the sample catalog's takes milliseconds) lets the match be named at the same
    /// snapshot as if the catalog had been checked at load, so a session decides when it would
    /// have; and the device's buffer (384 ms) holds what it captures meanwhile.
    static let longestCheckWaitWhileListening = 100

    /// Everything behind the verdict on what was heard so far (see `QueryExplanation`).
    public func explanation() -> QueryExplanation { matcher.explanation() }
}
