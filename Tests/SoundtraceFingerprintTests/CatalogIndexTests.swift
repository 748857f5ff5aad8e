import Testing

@testable import SoundtraceFingerprint

@Suite struct CatalogIndexTests {
    static let hashBits = EngineParameters().hashBits
    static let narrowest = EngineParameters().directoryBits

    /// `count` landmarks per reference with hashes spread over the whole hash space, the last at `lastFrame`.
    static func landmarks(references: Int, perReference count: Int, lastFrame: Int) -> [[Landmark]] {
        var state: UInt32 = 0x1234_5678
        return (0..<references).map { _ in
            (0..<count).map { i in
                state = state &* 1_664_525 &+ 1_013_904_223
                let frame = i == count - 1 ? lastFrame : Int(state >> 8) % (lastFrame + 1)
                return Landmark(hash: state >> UInt32(32 - hashBits), frame: frame)
            }
        }
    }

    /// Every landmark is found again under its hash, with its reference and frame.
    static func expectEveryLandmarkFound(_ landmarks: [[Landmark]], in index: CatalogIndex) {
        for (reference, list) in landmarks.enumerated() {
            for landmark in list {
                var found = false
                index.lookup(landmark.hash, limit: Int.max) { r, frame in
                    if r == reference && frame == landmark.frame { found = true }
                }
                #expect(found, "reference \(reference), frame \(landmark.frame)")
            }
        }
    }

    @Test func aCatalogOfOrdinarySizeKeepsTheNarrowestDirectory() throws {
        // Seven references of up to half an hour: 3 reference bits, frames up to 21 bits.
        let landmarks = Self.landmarks(references: 7, perReference: 200, lastFrame: 112_500)
        let index = try CatalogIndex.build(landmarks: landmarks, hashBits: Self.hashBits, minimumDirectoryBits: Self.narrowest)
        #expect(index.directoryBits == Self.narrowest)
        #expect((index.referenceBits, index.frameBits) == (3, 32 - (Self.hashBits - Self.narrowest) - 3))
        try index.validate(referenceCount: 7)
        Self.expectEveryLandmarkFound(landmarks, in: index)
    }

    @Test func aHundredHourCatalogWidensTheDirectoryInsteadOfRefusing() throws {
        // 1500 references, one of them 35 minutes long: 11 reference bits and 18 frame bits leave
        // 3 hash bits in an entry, so the directory takes the other 18 (1 MiB). The old fixed
        // layout refused anything past 2^24 reference and frame combinations.
        let landmarks = Self.landmarks(references: 1500, perReference: 20, lastFrame: 131_250)
        let index = try CatalogIndex.build(landmarks: landmarks, hashBits: Self.hashBits, minimumDirectoryBits: Self.narrowest)
        #expect((index.referenceBits, index.frameBits, index.directoryBits) == (11, 18, Self.hashBits - 3))
        try index.validate(referenceCount: 1500)
        #expect(index.entries.count == 1500 * 20)
        Self.expectEveryLandmarkFound(landmarks, in: index)
    }

    @Test func whatNoEntryCanAddressIsRefusedWithTheReason() {
        // 29 frame bits leave room for 2 reference bits at most (an entry keeps one hash bit).
        let long = Self.landmarks(references: 8, perReference: 2, lastFrame: (1 << 29) - 1)
        #expect(throws: CatalogIndex.Failure.tooManyReferences(8, max: 4)) {
            try CatalogIndex.build(landmarks: long, hashBits: Self.hashBits, minimumDirectoryBits: Self.narrowest)
        }
        let tooLong = Self.landmarks(references: 1, perReference: 2, lastFrame: 1 << 30)
        #expect(throws: CatalogIndex.Failure.referenceTooLong(frames: 1 << 30, maxFrames: (1 << 30) - 1)) {
            try CatalogIndex.build(landmarks: tooLong, hashBits: Self.hashBits, minimumDirectoryBits: Self.narrowest)
        }
    }

    @Test func aCatalogWithAWiderDirectoryIsWrittenReadAndCheckedLikeAnyOther() throws {
        // 2048 references (11 bits), the last 2^17 frames long (frames 0 ..< 2^17, 17 bits): 4 hash
        // bits left in an entry, a directory of 17 bits.
        let parameters = EngineParameters()
        let count = 2048
        var fingerprints: [ReferenceFingerprint] = []
        for r in 0..<count {
            let frames = r == count - 1 ? 1 << 17 : 40
            let landmarks = Self.landmarks(references: 1, perReference: 3, lastFrame: frames - 1)[0]
            fingerprints.append(
                ReferenceFingerprint(
                    landmarks: landmarks, frames: frames, signatures: [UInt16](repeating: UInt16(r & 0xFFFF), count: frames),
                    levels: [UInt32](repeating: 0, count: ReferenceLevels.count(frames: frames, parameters: parameters))))
        }
        let audio = (0..<count).map { r in
            ReferenceAudio(
                id: "piece-\(r)", title: "Piece \(r)", creator: "Tests", license: "CC0-1.0", sourceFile: "\(r).wav", metadata: [])
        }
        let bytes = try CatalogBuilder.encode(
            version: 1, references: audio, sourceSHA256: audio.map { _ in [UInt8](repeating: 7, count: 32) },
            fingerprints: fingerprints, parameters: parameters)
        for check in [CatalogFile.Check.full, .structure] {
            let catalog = try CatalogFile.decode(bytes, path: "wide.catalog", parameters: parameters, check: check)
            #expect(catalog.index.directoryBits == Self.hashBits - 4)
            #expect(catalog.references.count == count)
            Self.expectEveryLandmarkFound(fingerprints.map(\.landmarks), in: catalog.index)
        }
        // Incremental rebuilds read fingerprints back from the index: the same bytes again.
        let catalog = try CatalogFile.decode(bytes, path: "wide.catalog", parameters: parameters)
        let stored = catalog.storedFingerprints(at: Set(0..<count))
        let again = try CatalogBuilder.encode(
            version: 1, references: audio, sourceSHA256: audio.map { _ in [UInt8](repeating: 7, count: 32) },
            fingerprints: (0..<count).map { stored[$0]! }, parameters: parameters)
        #expect(again == bytes)
    }
}
