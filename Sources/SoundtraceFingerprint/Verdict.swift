/// What a query's audio was, as far as the catalog can tell.
public struct Verdict: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case match
        case noMatch
    }

    public let outcome: Outcome
    /// The matched reference (for a match) or the best candidate (for a no-match), as an index into the catalog.
    public let candidate: Int?
    /// Frames from the start of the reference to the start of the query (negative: the query began earlier).
    public let offsetFrames: Int
    /// Playback speed of the query relative to the reference, in steps of 1/speedDenominator (0 = same speed).
    public let speedStep: Int
    /// Landmark hits aligned at the winning offset: the match's strength.
    public let score: Int
    /// Best aligned hits of any other reference.
    public let runnerUpScore: Int
    /// Aligned hits that chance alone would give at one offset, in 1/256 units (reporting and decision).
    public let chanceLevelQ8: Int
    /// Peaks and landmark lookups of the query so far: zero peaks means silence or a too-quiet microphone.
    public let queryPeaks: Int
    public let queryLandmarks: Int
    /// Audio frames heard so far.
    public let framesHeard: Int
    /// When the landmark hits alone did not decide: the strongest signature check of a candidate
    /// alignment (a match when it passed).
    let signature: SignatureCheck?
    /// Whether that check passed the engine's threshold.
    let signaturePassed: Bool
    /// The score `signature` had to reach: the first round's bar, or the wider net's (for the
    /// wider net's check, and for a recording another has more landmark hits than).
    var signatureBarQ12: Int? = nil
    /// That bar in standard units (reporting).
    public var signatureBar: Double? { signatureBarQ12.map { Double($0) / 4096 } }
    /// A match the final verdict's signature checks made where the landmark rule alone had not
    /// (too few aligned hits, or not clear enough of another recording or of chance): the landmark
    /// bars were not needed, the signature score's was.
    public internal(set) var decidedBySignatures = false
    /// The strongest check of the wider net (every well-voted alignment at the recorded speed),
    /// when the final verdict cast it.
    var wideSignature: SignatureCheck? = nil
    /// The check of the leading recording's next strongest places, when the final verdict's first
    /// checks did not decide: the place that decided, else the strongest.
    var placesSignature: SignatureCheck? = nil
    /// The whole-mix check of the landmark winner's own alignment, when one was made.
    var alignmentCheck: SignatureCheck? = nil
    /// The containment check of the deciding alignment (a match's, or the landmark winner's).
    var containment: ContainmentCheck? = nil
    /// Whether that alignment held everything the reference plays (`ContainmentCheck.passes`, with
    /// the signature check made at the same alignment); nil when it was not measured. Kept here so
    /// that whoever explains a verdict reads the engine's own judgement instead of repeating its rule.
    public internal(set) var containmentPassed: Bool? = nil
    /// The same judgement over the bands above 300 Hz alone (`ContainmentCheck.tier`), so that an
    /// explanation can say which of the two refused.
    public internal(set) var containmentAbovePassed: Bool? = nil
    /// Whether what was heard passed as the recording and steady noise where that was asked
    /// (`ContainmentCheck.moreThanSteadyNoise`): nil where the misfit was not measured.
    public internal(set) var containmentSteadyNoisePassed: Bool? = nil
    /// How the named (or leading) alignment's hits lie over the time heard: at one offset, or along
    /// a tempo change (`TempoDrift`); nil when it was not measured.
    public internal(set) var tempoDrift: TempoDrift? = nil

    /// Of that check (tuning and diagnosis): signature bits compared with any weight, their total
    /// weight, the weight of those that disagreed, and the score in standard units.
    public var signatureBits: Int? { signature?.bits }
    /// A match whose alignment passed the signature check: every match, since every match needs
    /// the whole mix to agree (kept for callers that ask).
    public var isConfirmedBySignature: Bool {
        guard isMatch, let signature, signature.reference == candidate else { return false }
        return signaturePassed
    }
    public var signatureWeight: Int? { signature?.weight }
    public var signatureWeightedErrors: Int? { signature?.weightedErrors }
    public var signatureScore: Double? { signature.flatMap { $0.bits > 0 ? Double($0.scoreQ12) / 4096 : nil } }
    /// Its weighted disagreement rate (0.5 for unrelated music).
    public var signatureErrorRate: Double? { signature.flatMap { $0.weight > 0 ? Double($0.weightedErrors) / Double($0.weight) : nil } }
    /// The wider net's strongest score (tuning and diagnosis).
    public var wideSignatureScore: Double? { wideSignature.flatMap { $0.bits > 0 ? Double($0.scoreQ12) / 4096 : nil } }
    /// The score at the leading recording's next strongest places, as `placesSignature` (tuning and
    /// diagnosis).
    public var placesSignatureScore: Double? { placesSignature.flatMap { $0.bits > 0 ? Double($0.scoreQ12) / 4096 : nil } }

    public var isMatch: Bool { outcome == .match }

    /// A match heard so deep in noise that the steady-noise model's tighter bar judged it
    /// (`ContainmentCheck.steadyNoiseMaxMisfitQ12`): there a few seconds cannot tell the recording
    /// from a piece that keeps only its loudest part, and more audio can.
    public func isDeepInNoise(_ p: EngineParameters) -> Bool {
        guard isMatch, let containment, let signature else { return false }
        return containment.heardThroughNoise(p, signature: signature)
            && signature.errorRateQ12 >= p.containmentDeepNoiseErrorRateQ12
    }

    /// The whole-mix check of the best landmark alignment (tuning and diagnosis): bits compared,
    /// weighted disagreement rate (0.5 for unrelated music) and score.
    public var alignmentBits: Int? { alignmentCheck?.bits }
    public var alignmentErrorRate: Double? {
        alignmentCheck.flatMap { $0.weight > 0 ? Double($0.weightedErrors) / Double($0.weight) : nil }
    }
    /// How far what was heard falls short of the reference's loud moments at that alignment, in
    /// dB (tuning and diagnosis; a match needs it small), and the level frames it compared.
    public var containmentShortfallDecibels: Double? { containment?.shortfallDecibels }
    public var containmentCells: Int? { containment?.cells }
    /// Level frames lined up with what was heard, quiet ends included (`ContainmentCheck.alignedCells`).
    public var containmentAlignedCells: Int? { containment?.heardCells }
    public var containmentSurplusDecibels: Double? { containment?.surplusDecibels }
    /// Heard through noise: how far what was heard strays from the reference plus steady noise, as
    /// a mean squared deviation (about 1.0 for the recording in steady noise; `ContainmentCheck+SteadyNoise`);
    /// nil where it was not measured.
    public var containmentNoiseMisfit: Double? { containment?.steadyNoiseMisfitQ12.map { Double($0) / 4096 } }
    /// Whether so much was added (people talking, most often) that the shortfall was measured with
    /// each band's steadiest gain (`ContainmentCheck.steadiestGainShortfallQ12`).
    public var containmentGainSteadied: Bool { containment?.steadiestGainShortfallQ12 != nil }
    public var containmentClearanceDecibels: Double? { containment.map { Double($0.clearanceQ8) / 256 * 3.0103 } }
    /// The shortfall below 300 Hz and how clearly those bands were heard (`ContainmentCheck.lowShortfallQ12`).
    public var containmentLowShortfallDecibels: Double? { containment?.lowShortfallQ12.map { Double($0) / 4096 * 3.0103 } }
    public var containmentLowHeardRangeDecibels: Double? { containment?.lowHeardRangeQ8.map { Double($0) / 256 * 3.0103 } }
    /// Whether the low bands, heard clearly, refused the alignment (`ContainmentCheck.lowBandsMissing`);
    /// nil when they were not measured.
    public func containmentLowBandsMissing(_ p: EngineParameters) -> Bool? {
        guard let containment, containment.lowShortfallQ12 != nil else { return nil }
        return containment.lowBandsMissing(p)
    }
    public var alignmentScore: Double? { alignmentCheck.flatMap { $0.bits > 0 ? Double($0.scoreQ12) / 4096 : nil } }
}
