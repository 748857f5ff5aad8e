/// Checks one landmark alignment (reference, offset, speed) by comparing the query's signature
/// bits, weighted by how reliable each is, with the reference's frames there. Unrelated music
/// disagrees on about half of them; the check passes when the weighted disagreements fall far
/// enough below that to rule out chance.
struct SignatureCheck: Equatable {
    let reference: Int
    let offsetFrames: Int
    let speedStep: Int
    /// Bits compared with any weight, and the weighted disagreements and total weight.
    let bits: Int
    let weightedErrors: Int
    let weight: Int
    /// Standard scores below the null rate, in 1/4096: sum of w * (null - disagreement) / sqrt(sum of w²).
    let scoreQ12: Int

    /// Weighted disagreements per unit of weight, in 1/4096: about 2048 for unrelated music, near 0
    /// for the recording itself, in between when noise covers it or when only one layer is shared.
    var errorRateQ12: Int { weight > 0 ? weightedErrors * 4096 / weight : 4096 }

    /// Whether a landmark alignment's signatures lean towards the recording over enough audio:
    /// the first half of a match's whole-mix evidence (`ContainmentCheck` is the second).
    func confirmsWholeMix(_ parameters: EngineParameters) -> Bool {
        bits >= parameters.wholeMixMinBits && errorRateQ12 <= parameters.wholeMixMaxErrorRateQ12
    }

    /// Whether an alignment the landmark hits did not decide may still be named: more audio, a
    /// score far beyond chance, and the same closeness as `confirmsWholeMix`.
    func rescues(_ parameters: EngineParameters) -> Bool {
        rescues(parameters, minimumScoreQ12: parameters.signatureMinScoreQ12)
    }

    func rescues(_ parameters: EngineParameters, minimumScoreQ12: Int) -> Bool {
        bits >= parameters.signatureMinReliableBits && scoreQ12 >= minimumScoreQ12
            && errorRateQ12 <= parameters.wholeMixMaxErrorRateQ12
    }

    /// The best of the alignments `offsetFrames ± signatureShiftFrames` at speed `speedStep`.
    static func best(
        query: QuerySignatures.Reliable, catalog: Catalog, reference: Int,
        offsetFrames: Int, speedStep: Int
    ) -> SignatureCheck? {
        let p = catalog.parameters
        var best: SignatureCheck? = nil
        for shift in -p.signatureShiftFrames...p.signatureShiftFrames {
            let check = compare(
                query: query, catalog: catalog, reference: reference, offsetFrames: offsetFrames + shift,
                speedStep: speedStep)
            if check.scoreQ12 > best?.scoreQ12 ?? Int.min { best = check }
        }
        return best
    }

    private static func compare(
        query: QuerySignatures.Reliable, catalog: Catalog, reference: Int,
        offsetFrames: Int, speedStep: Int
    ) -> SignatureCheck {
        let p = catalog.parameters
        let start = catalog.signatureStart[reference]
        let length = catalog.references[reference].durationFrames
        let frames = query.bits.count
        // The query frames that land inside the reference form one run (the mapping only grows).
        let inside: Range<Int>
        let weightedErrors: Int
        if speedStep == 0 {
            let first = min(frames, max(query.firstFrame, -offsetFrames))
            inside = first..<max(first, min(frames, length - offsetFrames))
            weightedErrors = nominalErrors(
                query: query, signatures: catalog.signatures, from: start + offsetFrames,
                frames: inside)
        } else {
            (weightedErrors, inside) = stretchedErrors(
                query: query, signatures: catalog.signatures, start: start,
                length: length, offsetFrames: offsetFrames,
                numerator: p.speedDenominator + speedStep, denominator: p.speedDenominator)
        }
        let bits = query.bitsBefore[inside.upperBound] - query.bitsBefore[inside.lowerBound]
        let weight = query.weightBefore[inside.upperBound] - query.weightBefore[inside.lowerBound]
        let weightSquares = query.weightSquaresBefore[inside.upperBound] - query.weightSquaresBefore[inside.lowerBound]
        let surplusQ12 = p.signatureNullRateQ12 * weight - 4096 * weightedErrors
        let scoreQ12 = weightSquares > 0 ? surplusQ12 * 64 / max(1, integerSquareRoot(weightSquares * 4096)) : Int.min
        return SignatureCheck(
            reference: reference, offsetFrames: offsetFrames, speedStep: speedStep, bits: bits,
            weightedErrors: weightedErrors, weight: weight, scoreQ12: scoreQ12)
    }
}

/// floor(sqrt(n)) for n >= 0, by Newton's method on integers.
func integerSquareRoot(_ n: Int) -> Int {
    guard n > 1 else { return max(0, n) }
    var x = n
    var y = (x + 1) / 2
    while y < x {
        x = y
        y = (x + n / x) / 2
    }
    return x
}
