/// A query's landmark pair as the matcher keeps it: positions in sixteenths of a bin and of a frame.
struct QueryPair {
    let anchorBinQ4: Int32
    let targetBinQ4: Int32
    let anchorTimeQ4: Int32
    let deltaTimeQ4: Int32
    /// The speed hypotheses at which the pair's hash was common (`QueryMatcher.commonStepBit`),
    /// recorded once it was looked up.
    var commonSteps: UInt16 = 0

    init(anchor: Peak, target: Peak) {
        anchorBinQ4 = Int32(clamping: anchor.binQ4)
        targetBinQ4 = Int32(clamping: target.binQ4)
        anchorTimeQ4 = Int32(clamping: anchor.timeQ4)
        deltaTimeQ4 = Int32(clamping: target.timeQ4 - anchor.timeQ4)
    }

    /// The most pairs a query of `frames` frames can form: every density block's peaks, each
    /// anchoring at most the fan-out (one block more for the look-ahead at the end).
    static func maximumCount(parameters p: EngineParameters, frames: Int) -> Int {
        (frames / p.densityBlockFrames + 2) * p.queryPeaksPerBlock * p.queryFanOut
    }
}

/// Common hashes. In a big catalog most index entries sit under hashes shared by many references
/// (at 100 hours, 80 % of them under hashes with more than `maxEntriesPerHash` entries): a hit there
/// says little about which reference is playing, so those hashes do not vote for every reference.
/// But they still say a lot about *where* in a given reference the query lies. So the few
/// references whose alignments the rare hashes already single out become candidates, and from then
/// on the common hashes vote for them too: each candidate's entries are found by binary search
/// within the hash's run, and the pairs heard before it qualified are replayed, so that a
/// candidate's count is the same whenever it qualified. Hits a candidate gets this way do not enter
/// the chance estimate, which stays that of the hits every reference gets alike.
extension QueryMatcher {
    /// Makes candidates of the references whose best alignment reached `commonHashPromotionHits`
    /// (most hits first, then the lower number), while there is room. Called after each peak, so
    /// that what becomes a candidate depends on the audio alone, not on how it was pushed.
    func promoteCandidates() {
        let p = parameters
        while candidates.count < p.commonHashCandidates {
            var chosen: Int? = nil
            for r in bestScore.indices where !isCandidate[r] && bestScore[r] >= p.commonHashPromotionHits {
                if chosen.map({ bestScore[r] > bestScore[$0] }) ?? true { chosen = r }
            }
            guard let chosen else { return }
            candidates.append(chosen)
            isCandidate[chosen] = true
            replayCommonHashes(for: chosen)
        }
    }

    /// The votes `reference` would have had through common hashes from every pair heard so far.
    /// Only the speed hypotheses at which a pair's hash was common are looked up again: the others
    /// found nothing or a hash that voted for every reference, and would give no vote.
    private func replayCommonHashes(for reference: Int) {
        for pair in pairs {
            for stepIndex in parameters.speedSteps.indices where Self.mayBeCommon(pair.commonSteps, stepIndex: stepIndex) {
                lookup(of: pair, stepIndex: stepIndex) { run, anchorFrame in
                    guard !votesForEveryReference(run, stepIndex: stepIndex) else { return }
                    voteCommon(run: run, reference: reference, stepIndex: stepIndex, anchorFrame: anchorFrame)
                }
            }
        }
    }

    /// A pair's record of a common hash at speed hypothesis `stepIndex`; the record holds the first
    /// 16 hypotheses (9 by default), and any beyond them is always looked up again.
    static func commonStepBit(_ stepIndex: Int) -> UInt16 { stepIndex < 16 ? 1 << UInt16(stepIndex) : 0 }

    static func mayBeCommon(_ commonSteps: UInt16, stepIndex: Int) -> Bool {
        stepIndex >= 16 || commonSteps & commonStepBit(stepIndex) != 0
    }

    /// Whether a hash with these entries votes for every reference at this speed hypothesis, or
    /// only for the candidates.
    func votesForEveryReference(_ run: Range<Int>, stepIndex: Int) -> Bool {
        run.count <= (stepIndex == nominalStep ? parameters.maxEntriesPerHashAtRecordedSpeed : parameters.maxEntriesPerHash)
    }

    /// A candidate's hits within one common hash's run, unless the hash is that common within this
    /// one reference too.
    func voteCommon(run: Range<Int>, reference: Int, stepIndex: Int, anchorFrame: Int) {
        let own = catalog.index.entries(of: reference, in: run)
        guard !own.isEmpty, own.count <= parameters.maxEntriesPerHash else { return }
        catalog.index.forEachHit(in: own) { r, frame in
            vote(reference: r, stepIndex: stepIndex, offset: frame - anchorFrame, chance: false)
        }
    }
}
