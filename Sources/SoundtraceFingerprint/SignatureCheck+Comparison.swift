#if _endian(big)
    #error("the packed signature comparison lays frames out as a little-endian CPU reads them")
#endif

/// The inner loops of a signature check: weighted disagreements between the query's frames and a
/// reference's, at the recorded speed (four frames per step) and at any other.
extension SignatureCheck {
    /// The weighted disagreements where query frame f meets reference frame
    /// offset + round(f · numerator / denominator), and the query frames inside the reference.
    static func stretchedErrors(
        query: QuerySignatures.Reliable, signatures: StoredWords<UInt16>, start: Int, length: Int,
        offsetFrames: Int, numerator n: Int, denominator d: Int
    ) -> (Int, Range<Int>) {
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
                errors += frameErrors(query, frame, signatures[start + referenceFrame])
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
    static func nominalErrors(
        query: QuerySignatures.Reliable, signatures: StoredWords<UInt16>, from base: Int,
        frames: Range<Int>
    ) -> Int {
        let levels = query.levels
        var errors = 0
        var frame = frames.lowerBound
        while frame < frames.upperBound && frame % 4 != 0 {
            errors += frameErrors(query, frame, signatures[base + frame])
            frame += 1
        }
        query.packedBits.withUnsafeBufferPointer { bits in
            query.packedMasks.withUnsafeBufferPointer { masks in
                signatures.withUnsafeBytes { reference in
                    // Four consecutive reference frames read as one word put frame 4w + k at bits
                    // 16k, as the query's packed words have it.
                    while frame + 4 <= frames.upperBound {
                        let word = frame / 4
                        let disagreements = bits[word] ^ reference.loadUnaligned(fromByteOffset: 2 * (base + frame), as: UInt64.self)
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
            errors += frameErrors(query, frame, signatures[base + frame])
            frame += 1
        }
        return errors
    }

    /// The weighted disagreements of one query frame with one reference frame's bits.
    private static func frameErrors(_ query: QuerySignatures.Reliable, _ frame: Int, _ reference: UInt16) -> Int {
        let disagreements = query.bits[frame] ^ reference
        var errors = 0
        for level in 0..<query.levels { errors += (disagreements & query.masks[frame * query.levels + level]).nonzeroBitCount }
        return errors
    }
}
