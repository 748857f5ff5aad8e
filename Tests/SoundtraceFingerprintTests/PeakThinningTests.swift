import Testing

@testable import SoundtraceFingerprint

@Suite struct PeakThinningTests {
    static func peak(_ bin: Int, _ strength: Int32) -> Peak {
        Peak(frame: 0, bin: bin, timeQ4: 0, binQ4: bin * 16, strength: strength)
    }

    @Test func everyBandKeepsItsShareBeforeTheStrongestTakeTheRest() {
        // Noise-like strong peaks in the top band, weaker music in the bass: the bass keeps its share.
        let top = (0..<10).map { Self.peak(100 + $0 * 10, 900 - Int32($0)) }
        let bass = [Self.peak(12, 300), Self.peak(15, 200), Self.peak(18, 100)]
        let sorted = (top + bass).sorted { $0.strength > $1.strength }
        let kept = PeakPicker.thin(sorted, quota: 6, bandEdges: [10, 20, 233])
        #expect(kept.count == 6)
        #expect(kept.filter { $0.bin < 20 }.map(\.strength) == [300, 200, 100])
        #expect(kept.filter { $0.bin >= 20 }.map(\.strength) == [900, 899, 898])
    }

    @Test func sharesABandCannotFillGoToTheStrongestElsewhere() {
        let top = (0..<10).map { Self.peak(100 + $0 * 10, 900 - Int32($0)) }
        let bass = [Self.peak(12, 300)]
        let sorted = (top + bass).sorted { $0.strength > $1.strength }
        let kept = PeakPicker.thin(sorted, quota: 6, bandEdges: [10, 20, 233])
        #expect(kept.count == 6)
        #expect(kept.filter { $0.bin < 20 }.count == 1)
        #expect(kept.filter { $0.bin >= 20 }.map(\.strength) == [900, 899, 898, 897, 896])
    }

    @Test func theRemainderGoesToTheLowestBands() {
        let peaks = (0..<4).flatMap { band in (0..<5).map { Self.peak(10 + band * 10 + $0, 500 - Int32(band * 10 + $0)) } }
        let sorted = peaks.sorted { $0.strength > $1.strength }
        let kept = PeakPicker.thin(sorted, quota: 14, bandEdges: [10, 20, 30, 40, 50])
        let perBand = (0..<4).map { band in kept.filter { ($0.bin - 10) / 10 == band }.count }
        #expect(perBand == [4, 4, 3, 3])
    }
}
