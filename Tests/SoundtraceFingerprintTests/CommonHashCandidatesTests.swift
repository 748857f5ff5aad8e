import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// Hashes too common to vote for every reference still vote for the candidates (`QueryMatcher+Candidates`).
@Suite struct CommonHashCandidatesTests {
    static let rate = 8000
    /// Six pieces that share two of their four layers: many of their hashes have entries in several
    /// references, as most hashes of a big catalog do.
    static let references: [(id: String, audio: PCMAudio)] = (1...6).map { (song: Int) -> (id: String, audio: PCMAudio) in
        let own = UInt64(100 * song)
        let layers: [UInt64] = [901, 902, own + 3, own + 4]
        return ("shared-\(song)", TestAudio.layeredMusic(layers: layers, seconds: 30))
    }

    /// The catalog with query-side parameters changed (the index is the same).
    static func catalog(_ change: (inout EngineParameters) -> Void) throws -> Catalog {
        var p = EngineParameters()
        change(&p)
        return try TestAudio.catalog(references, parameters: p).0
    }

    /// The most entries one reference has under one hash, and how many entries sit under hashes
    /// with more than that in all.
    static func crowding(_ index: CatalogIndex, references: Int) -> (mostOwn: Int, sharedEntries: Int) {
        var runs: [Range<Int>] = []
        for hash in 0..<(UInt32(1) << UInt32(index.hashBits)) {
            let run = index.run(of: hash)
            if run.count > 1 { runs.append(run) }
        }
        let mostOwn = runs.map { run in (0..<references).map { index.entries(of: $0, in: run).count }.max() ?? 0 }.max() ?? 1
        return (mostOwn, runs.filter { $0.count > mostOwn }.reduce(0) { $0 + $1.count })
    }

    static func matcher(_ catalog: Catalog, hearing audio: PCMAudio) throws -> QueryMatcher {
        let matcher = try QueryMatcher(catalog: catalog)
        matcher.push(audio.samples)
        matcher.finish()
        return matcher
    }

    @Test func aReferencesEntriesWithinARunAreExactlyItsOwn() throws {
        let landmarks = CatalogIndexTests.landmarks(references: 5, perReference: 3000, lastFrame: 40_000)
        // Hashes squeezed into 10 bits, so that every run holds several references.
        let squeezed = landmarks.map { $0.map { Landmark(hash: $0.hash >> 11, frame: $0.frame) } }
        let index = try CatalogIndex.build(landmarks: squeezed, hashBits: 10, minimumDirectoryBits: 4)
        for hash in UInt32(0)..<1024 {
            let run = index.run(of: hash)
            for reference in 0..<5 {
                var found: [Int] = []
                index.forEachHit(in: index.entries(of: reference, in: run)) { r, frame in
                    #expect(r == reference)
                    found.append(frame)
                }
                let expected = squeezed[reference].filter { $0.hash == hash }.map(\.frame).sorted()
                #expect(found == expected, "hash \(hash), reference \(reference)")
            }
        }
    }

    @Test func aCandidateCountsEveryHitItWouldHaveIfEveryHashVoted() throws {
        let open = try Self.catalog {
            $0.maxEntriesPerHash = .max
            $0.maxEntriesPerHashAtRecordedSpeed = .max
        }
        let crowding = Self.crowding(open.index, references: Self.references.count)
        // Hashes with more entries than any one reference has under a hash vote for candidates only.
        #expect(crowding.sharedEntries > open.index.entries.count / 10)
        let limit = crowding.mostOwn
        let crowded = try Self.catalog {
            $0.maxEntriesPerHash = limit
            $0.maxEntriesPerHashAtRecordedSpeed = limit
        }
        let withoutCandidates = try Self.catalog {
            $0.maxEntriesPerHash = limit
            $0.maxEntriesPerHashAtRecordedSpeed = limit
            $0.commonHashCandidates = 0
        }

        let query = TestAudio.excerpt(Self.references[2].audio, from: 9 * Self.rate + 51, count: 6 * Self.rate)
        let everyHash = try Self.matcher(open, hearing: query)
        let candidates = try Self.matcher(crowded, hearing: query)
        let rareOnly = try Self.matcher(withoutCandidates, hearing: query)

        #expect(candidates.candidates.contains(2))
        // The pairs heard before reference 2 qualified were replayed: nothing lost, nothing twice.
        #expect(candidates.bestScoreOf(2) == everyHash.bestScoreOf(2))
        #expect(candidates.bestOffsetOf(2) == everyHash.bestOffsetOf(2))
        #expect(rareOnly.bestScoreOf(2) < candidates.bestScoreOf(2))
        #expect(candidates.candidateHits > 0 && rareOnly.candidateHits == 0)
        // The chance estimate counts only the hits every reference gets alike.
        #expect(candidates.totalHits == rareOnly.totalHits)
        #expect(candidates.totalHits < everyHash.totalHits)
        let verdict = candidates.verdict()
        #expect(verdict.isMatch && verdict.candidate == 2)
    }

    @Test func aLateCandidateGetsTheVotesOfEveryPairHeardBeforeIt() throws {
        let open = try Self.catalog {
            $0.maxEntriesPerHash = .max
            $0.maxEntriesPerHashAtRecordedSpeed = .max
        }
        let limit = Self.crowding(open.index, references: Self.references.count).mostOwn
        let query = TestAudio.excerpt(Self.references[3].audio, from: 11 * Self.rate + 17, count: 6 * Self.rate)
        let rareOnly = try Self.matcher(
            try Self.catalog {
                $0.maxEntriesPerHash = limit
                $0.maxEntriesPerHashAtRecordedSpeed = limit
                $0.commonHashCandidates = 0
            }, hearing: query)
        // Promoted only once it has two thirds of the hits the rare hashes give it in all: by then
        // most of the query's pairs, with their common hashes, were heard and must be replayed.
        let promotion = rareOnly.bestScoreOf(3) * 2 / 3
        #expect(promotion > 8)
        let late = try Self.matcher(
            try Self.catalog {
                $0.maxEntriesPerHash = limit
                $0.maxEntriesPerHashAtRecordedSpeed = limit
                $0.commonHashPromotionHits = promotion
            }, hearing: query)
        let everyHash = try Self.matcher(open, hearing: query)

        #expect(late.candidates.contains(3))
        #expect(late.bestScoreOf(3) == everyHash.bestScoreOf(3))
        #expect(late.bestScoreOf(3) > rareOnly.bestScoreOf(3))
    }

    @Test func candidatesDoNotDependOnBufferSizes() throws {
        let open = try Self.catalog { $0.maxEntriesPerHash = .max }
        let limit = Self.crowding(open.index, references: Self.references.count).mostOwn
        let crowded = try Self.catalog {
            $0.maxEntriesPerHash = limit
            $0.maxEntriesPerHashAtRecordedSpeed = limit
        }
        let query = TestAudio.addPinkNoise(
            TestAudio.excerpt(Self.references[4].audio, from: 3 * Self.rate, count: 5 * Self.rate), snrDB: 3, seed: 9)
        var seen: [[Int]] = []
        var verdicts: [Verdict] = []
        for buffer in [160, 1000, 4096] {
            let matcher = try QueryMatcher(catalog: crowded)
            var start = 0
            while start < query.samples.count {
                let end = min(query.samples.count, start + buffer)
                matcher.push(Array(query.samples[start..<end]))
                _ = matcher.verdict()  // interim verdicts, as a live session asks for them
                start = end
            }
            matcher.finish()
            seen.append(matcher.candidates)
            verdicts.append(matcher.verdict())
        }
        #expect(!seen[0].isEmpty)
        #expect(seen.allSatisfy { $0 == seen[0] })
        #expect(verdicts.allSatisfy { $0 == verdicts[0] })
    }

    @Test func candidatesAreFewAndNeedHits() throws {
        let open = try Self.catalog { $0.maxEntriesPerHash = .max }
        let limit = Self.crowding(open.index, references: Self.references.count).mostOwn
        let crowded = try Self.catalog {
            $0.maxEntriesPerHash = limit
            $0.maxEntriesPerHashAtRecordedSpeed = limit
            $0.commonHashCandidates = 2
        }
        let query = TestAudio.excerpt(Self.references[1].audio, from: 2 * Self.rate, count: 8 * Self.rate)
        let matcher = try Self.matcher(crowded, hearing: query)
        #expect(matcher.candidates.count <= 2 && matcher.candidates.contains(1))
        let silence = try Self.matcher(
            crowded, hearing: PCMAudio(sampleRate: Self.rate, samples: [Int16](repeating: 0, count: 5 * Self.rate)))
        #expect(silence.candidates.isEmpty)
    }
}
