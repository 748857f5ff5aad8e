import SoundtraceFingerprint

/// The measures a verdict rests on, each with the bar it had to pass, in words: the same rule as
/// `QueryMatcher.verdict()` (docs/BENCHMARKS.md, "How a query is decided"), read back for people.
struct DecisionCheck {
    let name: String
    let value: String
    let bar: String
    /// nil when the measure was not taken (e.g. too little audio).
    let passed: Bool?
}

enum DecisionChecks {
    static func of(_ e: QueryExplanation) -> [DecisionCheck] {
        let v = e.verdict
        let p = e.parameters
        let ratio = Double(p.minRatioOverRunnerUpQ8) / 256
        let chanceRatio = Double(p.minRatioOverChanceQ8) / 256
        // A match the signatures decided never needed the landmark rule: its bars are shown, not judged.
        let bySignatures = v.isMatch && v.decidedBySignatures
        let notNeeded = bySignatures ? " (not needed: the signature score decided)" : ""
        func landmarkRule(_ passed: Bool) -> Bool? { bySignatures ? nil : passed }
        var checks: [DecisionCheck] = [
            DecisionCheck(
                name: "aligned landmark hits", value: "\(v.score)\(notNeeded)", bar: "at least \(p.minAlignedHits)",
                passed: landmarkRule(v.score >= p.minAlignedHits)),
            DecisionCheck(
                name: "against the best other recording", value: "\(v.score) vs \(v.runnerUpScore)\(notNeeded)",
                bar: "at least \(fmt(ratio)) times", passed: landmarkRule(Double(v.score) >= ratio * Double(max(1, v.runnerUpScore)))),
            DecisionCheck(
                name: "against chance", value: "\(v.score) vs \(fmt(e.chanceLevel))\(notNeeded)",
                bar: "at least \(fmt(chanceRatio)) times", passed: landmarkRule(Double(v.score) >= chanceRatio * e.chanceLevel))
        ]
        let driftRatio = Double(p.minDriftRatioQ8) / 256
        checks.append(
            DecisionCheck(
                name: "hits at one offset (not a tempo change)",
                value: v.tempoDrift.map {
                    $0.driftingHits == 0
                        ? "\($0.steadyHits) at one offset, too few others near it for a tempo change's line"
                        : "\($0.steadyHits) at one offset, \($0.driftingHits) along a tempo change of \(fmt(Double($0.slopePerMille) / 10)) %"
                } ?? "not measured",
                bar: "a tempo change's line under \(p.minDriftingHits) hits or under \(fmt(driftRatio)) times those at one offset",
                passed: v.tempoDrift.map { !$0.drifts(p) }))
        let maxRate = Double(p.wholeMixMaxErrorRateQ12) / 4096
        let rate = v.signatureErrorRate ?? v.alignmentErrorRate
        checks.append(
            DecisionCheck(
                name: "frame signatures disagreeing (whole mix)", value: rate.map { fmt($0) } ?? "not measured",
                bar: "at most \(fmt(maxRate)) (unrelated music: about 0.5)", passed: rate.map { $0 <= maxRate }))
        let strict = Double(p.containmentMaxShortfallQ12) / 4096 * 3.0103
        let coloured = Double(p.containmentColouredMaxShortfallQ12) / 4096 * 3.0103
        let colouredRate = Double(p.containmentColouredMaxErrorRateQ12) / 4096
        let surplusBar = Double(p.containmentMaxSurplusQ12) / 4096 * 3.0103
        let closeRate = Double(p.containmentCloseErrorRateQ12) / 4096
        let quietRate = Double(p.containmentQuietMaxErrorRateQ12) / 4096
        let quietSurplusBar = Double(p.containmentQuietMaxSurplusQ12) / 4096 * 3.0103
        let noisyClearance = tenthsOfDecibels(q8: p.containmentNoisyClearanceQ8)
        let noisyRate = Double(p.containmentNoisyErrorRateQ12) / 4096
        let talkSurplus = Double(p.containmentTalkSurplusQ12) / 4096 * 3.0103
        let shortfall = v.containmentShortfallDecibels
        let surplus = v.containmentSurplusDecibels ?? 0
        checks.append(
            DecisionCheck(
                name: "containment: heard level short of the recording's (and above it)",
                value: shortfall.map {
                    let gain = v.containmentGainSteadied ? " (sound was added: gain from the steadiest half of the frames)" : ""
                    let clear =
                        v.containmentClearanceDecibels.map { ", the recording's loud end \(fmt($0)) dB above the heard noise floor" } ?? ""
                    let cells = v.containmentCells ?? 0
                    let aligned = v.containmentAlignedCells.map { $0 > cells ? " of \($0) heard" : "" } ?? ""
                    return "\(fmt($0)) dB short\(gain), \(fmt(surplus)) dB above, over \(cells) level frames\(aligned)\(clear)"
                } ?? "not measured",
                bar:
                    "at most \(fmt(strict)) dB short, or \(fmt(coloured)) dB with signatures within \(fmt(colouredRate)) "
                    + "and at most \(fmt(surplusBar)) dB above (or signatures within \(fmt(closeRate))), "
                    + "or within \(fmt(quietRate)) and at most \(fmt(quietSurplusBar)) dB above over \(p.containmentQuietMinCells) frames or more; "
                    + "heard under \(fmt(noisyClearance)) dB above the noise floor with signatures \(fmt(noisyRate)) apart or more, "
                    + "over \(p.containmentNoisyMinCells) frames heard or more; heard under \(fmt(noisyClearance)) dB above it, "
                    + "under \(fmt(talkSurplus)) dB above the recording's level where under \(p.containmentTalkMinCells) frames; "
                    + "always over \(p.containmentMinCells) level frames or more",
                passed: v.containmentAbovePassed))
        let lowBar = Double(p.containmentLowMaxShortfallQ12) / 4096 * 3.0103
        let lowGate = tenthsOfDecibels(q8: p.containmentLowMinHeardRangeQ8)
        checks.append(
            DecisionCheck(
                name: "containment below 300 Hz: heard level short of the recording's",
                value: v.containmentLowShortfallDecibels.map {
                    "\(fmt($0)) dB short, heard \(fmt(v.containmentLowHeardRangeDecibels ?? 0)) dB above the floor"
                } ?? "not measured",
                bar:
                    "at most \(fmt(lowBar)) dB short where heard \(fmt(lowGate)) dB or more above the floor; less clearly heard, no evidence",
                passed: v.containmentLowBandsMissing(p).map { !$0 }))
        let misfitBar = Double(p.containmentSteadyNoiseMaxMisfitQ12) / 4096
        let deepBar = Double(p.containmentDeepNoiseMaxMisfitQ12) / 4096
        let deepRate = Double(p.containmentDeepNoiseErrorRateQ12) / 4096
        checks.append(
            DecisionCheck(
                name: "heard through noise: the recording and steady noise, nothing else",
                value: v.containmentNoiseMisfit.map { "misfit \(fmt($0)) (steady noise alone: about 1)" }
                    ?? (v.containmentCells == nil ? "not measured" : "not asked: heard clearly, or signatures close"),
                bar:
                    "at most \(fmt(misfitBar)) where heard under \(fmt(noisyClearance)) dB above the noise floor with signatures "
                    + "\(fmt(noisyRate)) apart or more, at most \(fmt(deepBar)) with signatures \(fmt(deepRate)) apart or more; "
                    + "elsewhere not asked",
                // Heard clearly, the question is not asked, and so nothing was refused by it.
                passed: v.containmentSteadyNoisePassed ?? (v.containmentCells == nil ? nil : true)))
        if let score = v.signatureScore, !v.isMatch || bySignatures {
            let bar = v.signatureBar ?? Double(p.signatureMinScoreQ12) / 4096
            checks.append(
                DecisionCheck(
                    name: "signature score (when the landmarks did not decide)", value: fmt(score),
                    bar:
                        "at least \(fmt(bar)) (\(fmt(Double(p.signatureMinScoreQ12) / 4096)) for the recording with the most landmark hits, "
                        + "at any of its \(p.leaderSignaturePlaces) strongest places; "
                        + "\(fmt(Double(p.signatureWideMinScoreQ12) / 4096)) for any other and in the wider net)",
                    passed: score >= bar))
        }
        return checks
    }

    /// The verdict in one sentence.
    static func sentence(_ e: QueryExplanation, catalog: Catalog) -> String {
        let v = e.verdict
        if v.isMatch, let index = v.candidate {
            let audio = catalog.references[index].audio
            let how =
                v.decidedBySignatures
                ? "the landmark hits alone did not decide; the frame signatures did, and every other check passed"
                : "every check passed"
            return
                "Match: \"\(audio.title)\" by \(audio.creator), heard from \(Text.seconds(e.parameters.seconds(forFrames: v.offsetFrames))) s in; \(how)."
        }
        if v.queryPeaks == 0 { return "No match: nothing was heard (silence, or a microphone too quiet to use)." }
        let failed = of(e).filter { $0.passed == false }.map(\.name)
        let best = v.candidate.map { "the best candidate, \"\(catalog.references[$0].audio.title)\", " } ?? ""
        return "No match: \(best)failed \(failed.isEmpty ? "to stand out" : failed.joined(separator: "; "))."
    }

    /// A bar in log2 Q8 as decibels to a tenth: bars set as whole decibels round in log2 Q8.
    static func tenthsOfDecibels(q8: Int) -> Double { (Double(q8) / 256 * 3.0103 * 10).rounded() / 10 }

    static func fmt(_ x: Double) -> String {
        let r = (x * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
