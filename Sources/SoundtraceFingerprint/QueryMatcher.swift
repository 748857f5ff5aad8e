/// Incremental matching of one query against a catalog: feed contiguous audio at the engine's rate
/// as it arrives, ask for a verdict at any time. Landmark hits vote for (reference, speed, offset);
/// a candidate is an alignment that stands well clear of every other reference and of chance, or, when
/// noise has left too few hits for that, an alignment whose frame signatures agree with the
/// reference's far beyond what unrelated music does; and a candidate is a match only when the whole
/// mix heard there holds everything the reference plays (see `verdict()`).
public final class QueryMatcher {
    public let catalog: Catalog
    let parameters: EngineParameters
    private let spectrogram: Spectrogram
    private let picker: PeakPicker
    private let pairer: PeakPairer
    private let maxFrames: Int
    @exclusivity(unchecked) private var signatures: QuerySignatures
    /// The band levels of every speed hypothesis (edges moved by that speed), and the smoothed
    /// band powers of every frame heard: per frame, each hypothesis's bands in turn (`ContainmentCheck`).
    private let levelExtractor: BandLevelExtractor
    @exclusivity(unchecked) private var levels: HeardLevels
    /// The frames heard whose transform window held digital silence only (a gap in the capture, or
    /// a source that stopped), in order: before or after the audio, the containment check takes no
    /// evidence from next to them (`framesOffSilentEdges`).
    private var silentFrames: [Int] = []

    /// The grid's layout never changes; its counters are a buffer it refers to.
    let votes: VoteGrid
    @exclusivity(unchecked) private(set) var bestScore: [Int]
    @exclusivity(unchecked) private var bestOffset: [Int]
    @exclusivity(unchecked) private var bestStep: [Int]
    /// Per reference, the best alignment at the nominal speed alone: noise leaves a true alignment
    /// so few hits that chance alignments at other speeds can outnumber it in `bestScore`, and
    /// playback at the recorded speed is by far the most common case.
    @exclusivity(unchecked) private var nominalScore: [Int]
    @exclusivity(unchecked) private var nominalOffset: [Int]
    /// Per reference, its best alignment more than `distinctAlignmentFrames` away from the best:
    /// where a recording repeats one layer of a passage (a loop, a riff, a bass line), that repeat
    /// can gather as many hits as the passage itself, or more when noise hides the other layers,
    /// and then fails the whole-mix check that the passage would have passed.
    @exclusivity(unchecked) private var apartScore: [Int]
    @exclusivity(unchecked) private var apartOffset: [Int]
    @exclusivity(unchecked) private var apartStep: [Int]
    /// The votes of the cells around the latest vote (`vote`), reused for every vote.
    private let nearbyVotes: UnsafeMutableBufferPointer<Int>
    let nominalStep: Int?
    /// Per speed hypothesis, how far it is from the recorded speed (|step|).
    private let stepDistance: [Int]
    private var hits = 0
    /// Hits through common hashes, which only candidates get (`QueryMatcher+Candidates`).
    var candidateHits = 0
    /// The query's pairs so far, replayed for a reference when it becomes a candidate.
    var pairs: [QueryPair] = []
    let maxStoredPairs: Int
    /// References that also count hits through hashes too common to vote for everyone, in the
    /// order they qualified; `isCandidate[r]` says whether r is one.
    var candidates: [Int] = []
    var isCandidate: [Bool]
    /// Set before pushing audio to keep what `explanation()` shows (spectrogram and peaks).
    public var recordsForExplanation = false
    private(set) var recordedSpectrogram: [[UInt8]] = []
    private(set) var recordedPeaks: [Peak] = []
    private var peaks = 0
    private var landmarks = 0
    private var finished = false
    /// True once audio beyond `maxQuerySeconds` was offered and ignored.
    public private(set) var truncated = false

    public enum Failure: Error, Equatable { case fftUnavailable }

    public init(catalog: Catalog) throws(Failure) {
        self.catalog = catalog
        let p = catalog.parameters
        parameters = p
        guard let spectrogram = Spectrogram(parameters: p) else { throw .fftUnavailable }
        self.spectrogram = spectrogram
        picker = PeakPicker(parameters: p, peaksPerBlock: p.queryPeaksPerBlock)
        // The zone is a little wider than the reference's, so that pairs of sped-up or slowed-down
        // audio still form; hashes outside the reference's layout are dropped after warping.
        pairer = PeakPairer(
            minFrames: max(1, p.minPairFrames - 1), maxFrames: p.maxPairFrames + 2,
            maxBins: p.maxPairBins + 2, fanOut: p.queryFanOut)
        maxFrames = p.maxQuerySeconds * p.sampleRate / p.hopSize
        signatures = QuerySignatures(parameters: p)
        levelExtractor = BandLevelExtractor(
            parameters: p, speedNumerators: p.speedSteps.map { p.speedDenominator + $0 },
            speedDenominator: p.speedDenominator)
        levels = HeardLevels(frameStride: levelExtractor.distinctBands.count, column: levelExtractor.column)
        votes = VoteGrid(
            referenceFrames: catalog.references.map(\.durationFrames), steps: p.speedSteps.count,
            padding: Self.votePadding(maxFrames: maxFrames))
        let count = catalog.references.count
        bestScore = [Int](repeating: 0, count: count)
        bestOffset = [Int](repeating: 0, count: count)
        bestStep = [Int](repeating: 0, count: count)
        nominalScore = [Int](repeating: 0, count: count)
        nominalOffset = [Int](repeating: 0, count: count)
        apartScore = [Int](repeating: 0, count: count)
        apartOffset = [Int](repeating: 0, count: count)
        apartStep = [Int](repeating: 0, count: count)
        nominalStep = p.speedSteps.firstIndex(of: 0)
        stepDistance = p.speedSteps.map { abs($0) }
        nearbyVotes = .allocate(capacity: 4 * p.offsetToleranceFrames + 1)
        isCandidate = [Bool](repeating: false, count: count)
        maxStoredPairs = QueryPair.maximumCount(parameters: p, frames: maxFrames)
    }

    deinit { nearbyVotes.deallocate() }

    /// A query can start before its reference by at most its own (warped) length.
    private static func votePadding(maxFrames: Int) -> Int { maxFrames + maxFrames / 40 + 2 }

    /// Bytes of vote counters a matcher can grow to, whatever the catalog's size.
    public static var maximumVoteCounterBytes: Int { SparseCounters.maximumBytes(slots: VoteGrid.maximumSlots) }

    /// Frames of audio analysed so far.
    public var framesHeard: Int { spectrogram.framesProduced }

    /// Adds the next contiguous samples of the query (at the engine's sample rate).
    public func push(_ samples: [Int16]) {
        guard !finished else { return }
        let room = (maxFrames - spectrogram.framesProduced) * parameters.hopSize + parameters.fftSize
        var input = samples
        if input.count > room {
            input.removeLast(input.count - max(0, room))
            truncated = true
        }
        spectrogram.push(input) { frame, row in
            guard frame < maxFrames else { return }
            signatures.append(power: spectrogram.lastPower)
            levelExtractor.push(power: spectrogram.lastPower)
            if spectrogram.lastPower.allSatisfy({ $0 == 0 }) { silentFrames.append(frame) }
            levels.append(levelExtractor.distinctSums)
            if recordsForExplanation {
                recordedSpectrogram.append(row[0...parameters.maxPeakBin].map { UInt8(clamping: $0 >> 6) })
            }
            picker.push(frame: frame, logPower: row, emit: self.addPeak)
        }
    }

    /// Ends the query: the last frames are analysed with what look-ahead there is.
    public func finish() {
        guard !finished else { return }
        finished = true
        picker.finish(emit: addPeak)
    }

    private func addPeak(_ peak: Peak) {
        peaks += 1
        if recordsForExplanation { recordedPeaks.append(peak) }
        pairer.push(peak, emit: addPair)
        promoteCandidates()
    }

    private func addPair(_ anchor: Peak, _ target: Peak) {
        landmarks += 1
        var pair = QueryPair(anchor: anchor, target: target)
        var commonSteps: UInt16 = 0
        forEachLookup(of: pair) { stepIndex, run, anchorFrame in
            if votesForEveryReference(run, stepIndex: stepIndex) {
                catalog.index.forEachHit(in: run) { reference, frame in
                    vote(reference: reference, stepIndex: stepIndex, offset: frame - anchorFrame, chance: true)
                }
            } else {
                commonSteps |= Self.commonStepBit(stepIndex)
                for reference in candidates {
                    voteCommon(run: run, reference: reference, stepIndex: stepIndex, anchorFrame: anchorFrame)
                }
            }
        }
        if pairs.count < maxStoredPairs {
            pair.commonSteps = commonSteps
            pairs.append(pair)
        }
    }

    /// The index entries of a query pair's hash at every speed hypothesis, with the anchor's frame
    /// at that speed.
    func forEachLookup(of pair: QueryPair, _ body: (_ stepIndex: Int, _ run: Range<Int>, _ anchorFrame: Int) -> Void) {
        for stepIndex in parameters.speedSteps.indices {
            lookup(of: pair, stepIndex: stepIndex) { run, anchorFrame in body(stepIndex, run, anchorFrame) }
        }
    }

    /// The index entries of a query pair's hash at one speed hypothesis, with the anchor's frame at that speed.
    @inline(__always) func lookup(of pair: QueryPair, stepIndex: Int, _ body: (_ run: Range<Int>, _ anchorFrame: Int) -> Void) {
        let d = parameters.speedDenominator
        let n = d + parameters.speedSteps[stepIndex]
        let anchorBin = roundedDivide(Int(pair.anchorBinQ4) * d, n)
        let targetBin = roundedDivide(Int(pair.targetBinQ4) * d, n)
        let deltaTime = roundedDivide(Int(pair.deltaTimeQ4) * n, d)
        let anchorFrame = roundedDivide(Int(pair.anchorTimeQ4) * n, d * 16)
        // No tolerance on the frame difference: looking up neighbouring differences helped noisy
        // queries but matched other pieces with the same instruments at a similar tempo.
        guard let hash = LandmarkHash.make(anchorBinQ4: anchorBin, targetBinQ4: targetBin, deltaTimeQ4: deltaTime) else { return }
        let run = catalog.index.run(of: hash)
        if !run.isEmpty { body(run, anchorFrame) }
    }

    /// One landmark hit. `chance` hits are those every reference gets alike, from which the chance
    /// level is estimated; a candidate's hits through common hashes are counted apart.
    @inline(__always) func vote(reference: Int, stepIndex: Int, offset: Int, chance: Bool) {
        guard let cell = votes.cell(reference: reference, step: stepIndex, offset: offset) else { return }
        // A refused vote still counts towards chance, which only makes a match harder.
        if chance { hits += 1 } else { candidateHits += 1 }
        let count = votes.added(cell)
        guard count > 0 else { return }
        // The windows centred up to `tolerance` frames either side of the vote all contain it; they
        // cover the cells up to twice that far, read once each.
        let tolerance = parameters.offsetToleranceFrames
        let reach = 2 * tolerance
        guard reach > 0, votes.counts.neighboursMayHold(cell, reach: reach) else {
            // Most votes of a big catalog land alone: every window holds this cell only, and the
            // first of the equal windows is taken, as below.
            record(top: count, offset: offset - tolerance, reference: reference, stepIndex: stepIndex)
            return
        }
        let near = nearbyVotes
        votes.counts.read(from: cell - reach, into: UnsafeMutableBufferPointer(rebasing: near[..<reach]))
        near[reach] = count
        votes.counts.read(from: cell + 1, into: UnsafeMutableBufferPointer(rebasing: near[(reach + 1)...]))
        // The fullest of those windows; of equal ones the first, as if each were offered in turn.
        var running = 0
        for i in 0...reach { running &+= near[i] }  // the window centred `tolerance` frames before
        var top = running
        var topShift = -tolerance
        for shift in stride(from: 1 - tolerance, through: tolerance, by: 1) {
            running = running &+ near[reach + shift + tolerance] &- near[reach + shift - tolerance - 1]
            if running > top {
                top = running
                topShift = shift
            }
        }
        record(top: top, offset: offset + topShift, reference: reference, stepIndex: stepIndex)
    }

    /// Keeps a reference's fullest window so far, overall, apart from it, and at the recorded speed.
    @inline(__always) private func record(top: Int, offset: Int, reference: Int, stepIndex: Int) {
        // Ties go to the speed closer to normal: neighbouring hypotheses overlap.
        // An alignment apart with fewer hits than a match needs could not be one: most votes (chance)
        // skip the bookkeeping.
        let best = bestScore[reference]
        if top > best || (top == best && stepDistance[stepIndex] < stepDistance[bestStep[reference]]) {
            if best >= parameters.minAlignedHits && abs(offset - bestOffset[reference]) > parameters.distinctAlignmentFrames {
                // The best so far is now the best elsewhere.
                apartScore[reference] = best
                apartOffset[reference] = bestOffset[reference]
                apartStep[reference] = bestStep[reference]
            }
            bestScore[reference] = top
            bestOffset[reference] = offset
            bestStep[reference] = stepIndex
        } else if top >= parameters.minAlignedHits && top > apartScore[reference]
            && abs(offset - bestOffset[reference]) > parameters.distinctAlignmentFrames
        {
            apartScore[reference] = top
            apartOffset[reference] = offset
            apartStep[reference] = stepIndex
        }
        if stepIndex == nominalStep && top > nominalScore[reference] {
            nominalScore[reference] = top
            nominalOffset[reference] = offset
        }
    }

    /// The vote-weighted centre of the winning alignment window, a steadier offset than its centre bin.
    private func refinedOffset(_ reference: Int) -> Int {
        refinedOffset(reference, centre: bestOffset[reference], stepIndex: bestStep[reference])
    }

    private func refinedOffset(_ reference: Int, centre: Int, stepIndex: Int) -> Int {
        let tolerance = parameters.offsetToleranceFrames
        var weighted = 0
        var total = 0
        for o in (centre - tolerance)...(centre + tolerance) {
            let count = votes.cell(reference: reference, step: stepIndex, offset: o).map(votes.count) ?? 0
            weighted += count * o
            total += count
        }
        return total > 0 ? roundedDivide(weighted, total) : centre
    }

    /// The verdict on everything heard so far. Cheap enough to ask after every buffer (a whole-mix
    /// check of the landmark winner costs a pass over the frames heard, far less than their FFTs).
    /// Every match is confirmed by the whole mix: landmark hits only say that *something* in the
    /// query lines up with a reference (a shared loop, riff or sample is enough), so the winner's
    /// alignment must also lean towards the reference's signatures over all bands
    /// (`SignatureCheck.confirmsWholeMix`) and hold everything the reference plays there
    /// (`ContainmentCheck`). After `finish()`, when that does not decide, the best
    /// alignments are checked against the references' signatures (calibrated for the whole query:
    /// only the final verdict does that).
    public func verdict() -> Verdict {
        let winner = landmarkWinner
        let runnerUp = bestScore(excluding: winner)
        let p = parameters
        let cells = max(1, catalog.totalFrames * p.speedSteps.count)
        let chanceQ8 = hits * (2 * p.offsetToleranceFrames + 1) * 256 / cells
        let score = winner.map { bestScore[$0] } ?? 0
        let landmarksAgree = winner != nil && landmarkRulePasses(score: score, runnerUp: runnerUp, chanceQ8: chanceQ8)
        let heardEnough = signatures.frames > SignatureExtractor.warmUpFrames(p)
        let query = heardEnough && (landmarksAgree || finished) ? signatures.reliable() : nil
        var alignment: SignatureCheck? = nil
        if let query, let winner {
            alignment = SignatureCheck.best(
                query: query, catalog: catalog, reference: winner, offsetFrames: refinedOffset(winner),
                speedStep: p.speedSteps[bestStep[winner]])
        }
        let containment = alignment.flatMap(containment(of:))
        let wholeMixAgrees =
            landmarksAgree && alignment.map { $0.confirmsWholeMix(p) && containment?.passes(p, signature: $0) == true } == true
        // Measured only for what would be named: it replays every pair heard.
        let drift = wholeMixAgrees ? winner.map { tempoDrift(reference: $0, stepIndex: bestStep[$0], offset: bestOffset[$0]) } : nil
        let confirmed = wholeMixAgrees && drift?.drifts(p) != true
        if !confirmed, let query, let winner,
            let verdict = verdictApart(query: query, winner: winner, runnerUp: runnerUp, chanceQ8: chanceQ8)
        {
            return verdict
        }
        // Checking weak alignments on every interim verdict would give each look at a few seconds
        // of unrelated music another chance to pass by luck (a live-session test found exactly that).
        let checks = !confirmed && finished ? query.map(finalSignatureChecks) : nil
        // `signature` reports the deciding check, or else the first round's best; the wider net's
        // best is reported on its own, so that each can be read against its own bar.
        if let checks, let check = checks.decisive?.check ?? checks.narrow {
            let rescueDrift = checks.decisive.flatMap { decisive in
                p.speedSteps.firstIndex(of: decisive.check.speedStep).map {
                    tempoDrift(reference: decisive.check.reference, stepIndex: $0, offset: decisive.check.offsetFrames)
                }
            }
            let rescued = checks.decisive != nil && rescueDrift?.drifts(p) != true
            let chosen = rescued ? check.reference : winner
            var verdict = Verdict(
                outcome: rescued ? .match : .noMatch, candidate: chosen,
                offsetFrames: rescued ? check.offsetFrames : winner.map(refinedOffset) ?? 0,
                speedStep: rescued ? check.speedStep : winner.map { p.speedSteps[bestStep[$0]] } ?? 0,
                score: chosen.map { bestScore[$0] } ?? 0,
                runnerUpScore: rescued ? bestScore(excluding: check.reference) : runnerUp,
                chanceLevelQ8: chanceQ8, queryPeaks: peaks, queryLandmarks: landmarks,
                framesHeard: framesHeard, signature: check, signaturePassed: rescued, wideSignature: checks.wide)
            verdict.alignmentCheck = alignment
            verdict.placesSignature = checks.places
            verdict.decidedBySignatures = rescued
            verdict.tempoDrift = rescueDrift ?? drift
            let decidedByWiderNet = checks.decisive.map { $0.check != checks.narrow } ?? false
            verdict.signatureBarQ12 = decidedByWiderNet ? p.signatureWideMinScoreQ12 : narrowBarQ12(for: check.reference)
            if rescued, let decisive = checks.decisive {
                verdict.containment = decisive.containment
                verdict.containmentPassed = true
                verdict.containmentAbovePassed = true
                verdict.containmentSteadyNoisePassed = decisive.containment.noiseModelMisfit.map { _ in true }
            } else {
                verdict.containment = containment
                (verdict.containmentPassed, verdict.containmentAbovePassed, verdict.containmentSteadyNoisePassed) =
                    judged(containment, at: alignment)
            }
            return verdict
        }
        var verdict = Verdict(
            outcome: confirmed ? .match : .noMatch, candidate: winner,
            offsetFrames: winner.map(refinedOffset) ?? 0, speedStep: winner.map { p.speedSteps[bestStep[$0]] } ?? 0,
            score: score, runnerUpScore: runnerUp, chanceLevelQ8: chanceQ8, queryPeaks: peaks,
            queryLandmarks: landmarks, framesHeard: framesHeard, signature: landmarksAgree ? alignment : nil,
            signaturePassed: confirmed, wideSignature: checks?.wide)
        verdict.alignmentCheck = alignment
        verdict.placesSignature = checks?.places
        verdict.containment = containment
        verdict.tempoDrift = drift
        (verdict.containmentPassed, verdict.containmentAbovePassed, verdict.containmentSteadyNoisePassed) =
            judged(containment, at: alignment)
        return verdict
    }

    /// The match at the winner's best alignment apart from its best, when that one passes the same
    /// landmark rule and whole-mix checks as the best would have had to; nil otherwise.
    private func verdictApart(query: QuerySignatures.Reliable, winner: Int, runnerUp: Int, chanceQ8: Int) -> Verdict? {
        let p = parameters
        let score = apartScore[winner]
        guard landmarkRulePasses(score: score, runnerUp: runnerUp, chanceQ8: chanceQ8) else { return nil }
        let stepIndex = apartStep[winner]
        let offset = refinedOffset(winner, centre: apartOffset[winner], stepIndex: stepIndex)
        guard
            let check = SignatureCheck.best(
                query: query, catalog: catalog, reference: winner, offsetFrames: offset, speedStep: p.speedSteps[stepIndex]),
            check.confirmsWholeMix(p), let whole = containment(of: check), whole.passes(p, signature: check)
        else { return nil }
        let drift = tempoDrift(reference: winner, stepIndex: stepIndex, offset: apartOffset[winner])
        guard !drift.drifts(p) else { return nil }
        var verdict = Verdict(
            outcome: .match, candidate: winner, offsetFrames: offset, speedStep: p.speedSteps[stepIndex], score: score,
            runnerUpScore: runnerUp, chanceLevelQ8: chanceQ8, queryPeaks: peaks, queryLandmarks: landmarks,
            framesHeard: framesHeard, signature: check, signaturePassed: true, wideSignature: nil)
        verdict.alignmentCheck = check
        verdict.containment = whole
        verdict.containmentPassed = true
        verdict.containmentAbovePassed = true
        verdict.containmentSteadyNoisePassed = whole.noiseModelMisfit.map { _ in true }
        verdict.tempoDrift = drift
        return verdict
    }

    /// The landmark rule: enough aligned hits, well clear of every other recording and of chance.
    /// The best alignment and the one apart from it are held to the same rule.
    private func landmarkRulePasses(score: Int, runnerUp: Int, chanceQ8: Int) -> Bool {
        let p = parameters
        return score >= p.minAlignedHits
            && score * 256 >= p.minRatioOverRunnerUpQ8 * max(runnerUp, 1)
            && score * 256 * 256 >= p.minRatioOverChanceQ8 * chanceQ8
    }

    /// The containment check's pass or fail, judged with the signature check of its own alignment:
    /// in all, in the bands above 300 Hz alone, and as the recording and steady noise (nil where not
    /// measured).
    private func judged(_ containment: ContainmentCheck?, at check: SignatureCheck?) -> (
        all: Bool?, above: Bool?, steadyNoise: Bool?
    ) {
        guard let containment, let check else { return (nil, nil, nil) }
        return (
            containment.passes(parameters, signature: check), containment.tier(parameters, signature: check) != nil,
            containment.noiseModelMisfit.map { _ in !containment.moreThanSteadyNoise(parameters, signature: check) }
        )
    }

    /// The frames heard whose levels reach into neither the digital silence that came before the
    /// audio (a source that started after listening did) nor the silence after it (one that stopped
    /// dead). A level that does, through its transform window, the smoothing behind it or a
    /// neighbour the containment check reads with it, is partly silence, neither the music nor the
    /// room; taken as heard, it pulls the noise floor down and looks short of the recording, so that
    /// the verdict on the music would depend on when the source stopped. Silence within the audio
    /// is left as heard: a recording's own silences are in its levels too.
    private func framesOffSilentEdges() -> Range<Int> {
        let frames = min(framesHeard, maxFrames)
        guard let first = silentFrames.first, let last = silentFrames.last else { return 0..<frames }
        let p = parameters
        let reach = p.signatureSmoothingFrames + p.fftSize / p.hopSize
        var lower = 0
        var upper = frames
        if first == 0 {
            // The leading run: silent frames one after another from the first frame.
            var k = 0
            while k + 1 < silentFrames.count && silentFrames[k + 1] == silentFrames[k] + 1 { k += 1 }
            lower = min(frames, silentFrames[k] + reach + 1)
        }
        if last == frames - 1 {
            var k = silentFrames.count - 1
            while k > 0 && silentFrames[k - 1] == silentFrames[k] - 1 { k -= 1 }
            upper = max(lower, silentFrames[k] - reach)
        }
        return lower..<upper
    }

    /// The containment check at a signature check's alignment (its best shift).
    private func containment(of check: SignatureCheck) -> ContainmentCheck? {
        guard let step = parameters.speedSteps.firstIndex(of: check.speedStep) else { return nil }
        let bands = levelExtractor.bands
        return ContainmentCheck.measure(
            heardFrames: framesOffSilentEdges(),
            query: levels, first: step * bands,
            queryFrames: min(framesHeard, maxFrames), catalog: catalog,
            reference: check.reference, offsetFrames: check.offsetFrames, speedStep: check.speedStep,
            signatureErrorRateQ12: check.errorRateQ12)
    }

    // MARK: for `explanation()`

    var totalHits: Int { hits }
    func bestStepIndex(_ reference: Int) -> Int { bestStep[reference] }
    func bestScoreOf(_ reference: Int) -> Int { bestScore[reference] }
    func bestOffsetOf(_ reference: Int) -> Int { refinedOffset(reference) }
    func alignmentApart(_ reference: Int) -> Alignment? {
        apartScore[reference] > 0
            ? Alignment(
                votes: apartScore[reference], reference: reference,
                offset: refinedOffset(reference, centre: apartOffset[reference], stepIndex: apartStep[reference]))
            : nil
    }
    func reliableSignatures() -> QuerySignatures.Reliable? {
        signatures.frames > SignatureExtractor.warmUpFrames(parameters) ? signatures.reliable() : nil
    }
    /// The (up to three) references with the most hits.
    func explanationReferences() -> [Int] {
        bestScore.indices.filter { bestScore[$0] > 0 }.sorted { (bestScore[$0], -$0) > (bestScore[$1], -$1) }.prefix(3).map { $0 }
    }

    /// The reference whose best alignment has the most landmark hits (the first on a tie).
    private var landmarkWinner: Int? {
        var winner: Int? = nil
        for r in bestScore.indices where bestScore[r] > 0 {
            if winner.map({ bestScore[r] > bestScore[$0] }) ?? true { winner = r }
        }
        return winner
    }

    /// The best alignment score of any reference but `reference`.
    private func bestScore(excluding reference: Int?) -> Int {
        var best = 0
        for r in bestScore.indices where r != reference { best = max(best, bestScore[r]) }
        return best
    }

    /// The final verdict's signature checks: first the best alignments of the few references with
    /// the most hits, then the next strongest places of the one with the most; when none passes,
    /// the wider net of every well-voted alignment at the recorded speed, which must clear a
    /// higher bar.
    private func finalSignatureChecks(_ query: QuerySignatures.Reliable) -> FinalChecks {
        let p = parameters
        let holdsWholeMix = { (check: SignatureCheck) in self.containment(of: check).flatMap { $0.passes(p, signature: check) ? $0 : nil } }
        let reachesFirstRoundBar = { (check: SignatureCheck) in check.rescues(p, minimumScoreQ12: self.narrowBarQ12(for: check.reference)) }
        let narrow = narrowSignatureCheck(query)
        if let found = Self.firstConfirmed(narrow.map { [$0] } ?? [], rescues: reachesFirstRoundBar, wholeMix: holdsWholeMix) {
            return FinalChecks(narrow: narrow, decisive: found)
        }
        let placeChecks = leaderPlacesChecks(query)
        if let found = Self.firstConfirmed(placeChecks, rescues: reachesFirstRoundBar, wholeMix: holdsWholeMix) {
            return FinalChecks(narrow: found.check, places: found.check, decisive: found)
        }
        let wide = wideSignatureCheck(query)
        let decisive = Self.firstConfirmed(
            wide.map { [$0] } ?? [], rescues: { $0.rescues(p, minimumScoreQ12: p.signatureWideMinScoreQ12) }, wholeMix: holdsWholeMix)
        return FinalChecks(narrow: narrow, places: placeChecks.first, wide: wide, decisive: decisive)
    }

    /// The first of `checks` (strongest first) that reaches its bar and whose alignment holds the
    /// whole mix (`wholeMix` gives its containment check where it passes), with that check: for the
    /// first round's and the wider net's one check each, and for the leading recording's places,
    /// each in turn, not only the strongest: a recording that repeats a passage with another part over
    /// it agrees with what was heard about as well there, and in noise can agree better, while only
    /// the passage itself holds everything it plays.
    static func firstConfirmed(
        _ checks: [SignatureCheck], rescues: (SignatureCheck) -> Bool, wholeMix: (SignatureCheck) -> ContainmentCheck?
    ) -> (check: SignatureCheck, containment: ContainmentCheck)? {
        for check in checks where rescues(check) {
            if let whole = wholeMix(check) { return (check, whole) }
        }
        return nil
    }

    /// What the final verdict's signature checks found: the first round's deciding or strongest
    /// check, the leading recording's other places, the wider net's strongest, and the check that
    /// decided a match with its containment check.
    private struct FinalChecks {
        var narrow: SignatureCheck?
        var places: SignatureCheck? = nil
        var wide: SignatureCheck? = nil
        var decisive: (check: SignatureCheck, containment: ContainmentCheck)?
    }

    /// The score the first round's check of `reference` needs: the first round's bar when no other
    /// recording has more landmark hits, else the wider net's. The first round looks at several
    /// recordings, and a chance alignment of one the landmarks do not favour is one more look
    /// among many, as in the wider net: on the tuning set (with a reference fan-out of 6, 8 or 10,
    /// tried in session 22), such a look at a recording not heard reached 3.15 in pink noise at
    /// −5 dB, past the first round's 3, where noise left the containment check little to refuse
    /// (`SignatureRescueTests`; docs/BENCHMARKS.md, "One look among several").
    func narrowBarQ12(for reference: Int) -> Int {
        Self.narrowBarQ12(score: bestScore[reference], bestOther: bestScore(excluding: reference), parameters: parameters)
    }

    static func narrowBarQ12(score: Int, bestOther: Int, parameters p: EngineParameters) -> Int {
        score >= bestOther ? p.signatureMinScoreQ12 : p.signatureWideMinScoreQ12
    }

    /// The checks of the best alignments of the references with the most hits (and enough), both
    /// over all speeds and at the nominal speed; the strongest, ties going to the earlier candidate.
    private func narrowSignatureCheck(_ query: QuerySignatures.Reliable) -> SignatureCheck? {
        let p = parameters
        var candidates: [(reference: Int, offset: Int, stepIndex: Int)] = []
        for r in topReferences(by: bestScore) {
            candidates.append((r, refinedOffset(r), bestStep[r]))
        }
        if let nominalStep {
            for r in topReferences(by: nominalScore) where !candidates.contains(where: { $0.reference == r && $0.stepIndex == nominalStep })
            {
                candidates.append((r, refinedOffset(r, centre: nominalOffset[r], stepIndex: nominalStep), nominalStep))
            }
        }
        return strongest(
            candidates.lazy.compactMap { c in
                SignatureCheck.best(
                    query: query, catalog: self.catalog, reference: c.reference, offsetFrames: c.offset,
                    speedStep: p.speedSteps[c.stepIndex])
            })
    }

    /// The checks of the recording with the most landmark hits at its next strongest places (at
    /// its best speed), when the first round's checks did not decide: in noise a repeat of the
    /// heard passage, which the whole-mix checks refuse, can hold as many hits as the passage
    /// itself. Only then, so that every match the first round makes stays as it was; strongest
    /// first, the earlier place on a tie.
    private func leaderPlacesChecks(_ query: QuerySignatures.Reliable) -> [SignatureCheck] {
        let p = parameters
        guard let leader = landmarkWinner, bestScore[leader] >= p.signatureMinHits, p.leaderSignaturePlaces > 1 else { return [] }
        let step = bestStep[leader]
        var checked = [refinedOffset(leader)]
        if step == nominalStep { checked.append(refinedOffset(leader, centre: nominalOffset[leader], stepIndex: step)) }
        var places: [Int] = []
        let found = votes.strongestAlignments(
            of: leader, step: step, radius: p.offsetToleranceFrames, minimumVotes: p.signatureMinHits,
            limit: 4 * p.leaderSignaturePlaces)
        for a in found where places.count < p.leaderSignaturePlaces - 1 {
            guard (checked + places).allSatisfy({ abs($0 - a.offset) > p.distinctAlignmentFrames }) else { continue }
            places.append(a.offset)
        }
        let checks = places.compactMap { offset in
            SignatureCheck.best(
                query: query, catalog: self.catalog, reference: leader, offsetFrames: offset, speedStep: p.speedSteps[step])
        }
        return checks.enumerated().sorted { ($0.element.scoreQ12, -$0.offset) > ($1.element.scoreQ12, -$1.offset) }.map(\.element)
    }

    /// The checks of up to `signatureWideCandidates` alignments at the nominal speed with at least
    /// `signatureWideMinHits` hits (most hits first); the strongest.
    private func wideSignatureCheck(_ query: QuerySignatures.Reliable) -> SignatureCheck? {
        let p = parameters
        guard let nominalStep else { return nil }
        let alignments = votes.strongestAlignments(
            step: nominalStep, radius: p.offsetToleranceFrames,
            minimumVotes: p.signatureWideMinHits, limit: p.signatureWideCandidates)
        return strongest(
            alignments.lazy.compactMap { a in
                SignatureCheck.best(query: query, catalog: self.catalog, reference: a.reference, offsetFrames: a.offset, speedStep: 0)
            })
    }

    private func strongest(_ checks: some Sequence<SignatureCheck>) -> SignatureCheck? {
        var best: SignatureCheck? = nil
        for check in checks where check.scoreQ12 > best?.scoreQ12 ?? Int.min { best = check }
        return best
    }

    /// The `signatureCandidates` references with the highest scores of at least `signatureMinHits`.
    private func topReferences(by scores: [Int]) -> ArraySlice<Int> {
        scores.indices.filter { scores[$0] >= parameters.signatureMinHits }
            .sorted { (scores[$0], -$0) > (scores[$1], -$1) }.prefix(parameters.signatureCandidates)
    }
}
