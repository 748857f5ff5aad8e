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

    func passes(_ parameters: EngineParameters) -> Bool {
        passes(parameters, minimumScoreQ12: parameters.signatureMinScoreQ12)
    }

    func passes(_ parameters: EngineParameters, minimumScoreQ12: Int) -> Bool {
        bits >= parameters.signatureMinReliableBits && scoreQ12 >= minimumScoreQ12
    }

    /// The best of the alignments `offsetFrames ± signatureShiftFrames` at speed `speedStep`.
    static func best(query: QuerySignatures.Reliable, catalog: Catalog, reference: Int,
                     offsetFrames: Int, speedStep: Int) -> SignatureCheck? {
        let p = catalog.parameters
        var best: SignatureCheck? = nil
        for shift in -p.signatureShiftFrames...p.signatureShiftFrames {
            let check = compare(query: query, catalog: catalog, reference: reference, offsetFrames: offsetFrames + shift,
                                speedStep: speedStep)
            if check.scoreQ12 > best?.scoreQ12 ?? Int.min { best = check }
        }
        return best
    }

    private static func compare(query: QuerySignatures.Reliable, catalog: Catalog, reference: Int,
                                offsetFrames: Int, speedStep: Int) -> SignatureCheck {
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
            weightedErrors = nominalErrors(query: query, signatures: catalog.signatures, from: start + offsetFrames,
                                           frames: inside)
        } else {
            (weightedErrors, inside) = stretchedErrors(query: query, signatures: catalog.signatures, start: start,
                                                       length: length, offsetFrames: offsetFrames,
                                                       numerator: p.speedDenominator + speedStep, denominator: p.speedDenominator)
        }
        let bits = query.bitsBefore[inside.upperBound] - query.bitsBefore[inside.lowerBound]
        let weight = query.weightBefore[inside.upperBound] - query.weightBefore[inside.lowerBound]
        let weightSquares = query.weightSquaresBefore[inside.upperBound] - query.weightSquaresBefore[inside.lowerBound]
        let surplusQ12 = p.signatureNullRateQ12 * weight - 4096 * weightedErrors
        let scoreQ12 = weightSquares > 0 ? surplusQ12 * 64 / max(1, integerSquareRoot(weightSquares * 4096)) : Int.min
        return SignatureCheck(reference: reference, offsetFrames: offsetFrames, speedStep: speedStep, bits: bits,
                              weightedErrors: weightedErrors, weight: weight, scoreQ12: scoreQ12)
    }

    /// The weighted disagreements where query frame f meets reference frame
    /// offset + round(f · numerator / denominator), and the query frames inside the reference.
    static func stretchedErrors(query: QuerySignatures.Reliable, signatures: [UInt16], start: Int, length: Int,
                                        offsetFrames: Int, numerator n: Int, denominator d: Int) -> (Int, Range<Int>) {
        let levels = query.levels
        let frames = query.bits.count
        var errors = 0
        var firstInside = frames
        var endInside = frames
        var frame = query.firstFrame
        // round(f · n / d) stepped without dividing: the remainder stays in [0, 2d).
        var stretched = roundedDivide(frame * n, d)
        var remainder = 2 * frame * n + d - 2 * d * stretched
        while frame < frames {
            let referenceFrame = offsetFrames + stretched
            if referenceFrame >= length {
                endInside = frame
                break
            }
            if referenceFrame >= 0 {
                if firstInside == frames { firstInside = frame }
                let disagreements = query.bits[frame] ^ signatures[start + referenceFrame]
                for level in 0..<levels { errors += (disagreements & query.masks[frame * levels + level]).nonzeroBitCount }
            }
            frame += 1
            remainder += 2 * n
            while remainder >= 2 * d {
                remainder -= 2 * d
                stretched += 1
            }
        }
        return (errors, min(firstInside, endInside)..<endInside)
    }

    /// The weighted disagreements of query frames `frames` with the reference signatures from
    /// index `base` on, frame for frame: four frames per step where whole words fit.
    static func nominalErrors(query: QuerySignatures.Reliable, signatures: [UInt16], from base: Int,
                                      frames: Range<Int>) -> Int {
        let levels = query.levels
        var errors = 0
        var frame = frames.lowerBound
        func single(_ frame: Int) {
            let disagreements = query.bits[frame] ^ signatures[base + frame]
            for level in 0..<levels { errors += (disagreements & query.masks[frame * levels + level]).nonzeroBitCount }
        }
        while frame < frames.upperBound && frame % 4 != 0 {
            single(frame)
            frame += 1
        }
        query.packedBits.withUnsafeBufferPointer { bits in
            query.packedMasks.withUnsafeBufferPointer { masks in
                signatures.withUnsafeBytes { reference in
                    // Four consecutive reference frames, read as one little-endian word, line up
                    // with the query's packed word (both lay frame 4w + k at bits 16k).
                    while frame + 4 <= frames.upperBound {
                        let word = frame / 4
                        let disagreements = bits[word] ^ UInt64(littleEndian: reference.loadUnaligned(
                            fromByteOffset: 2 * (base + frame), as: UInt64.self))
                        var level = word * levels
                        let end = level + levels
                        while level < end {
                            errors += (disagreements & masks[level]).nonzeroBitCount
                            level += 1
                        }
                        frame += 4
                    }
                }
            }
        }
        while frame < frames.upperBound {
            single(frame)
            frame += 1
        }
        return errors
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
