import Glibc
import Testing

@testable import SoundtraceFingerprint

@Suite struct ResamplerFiltersTests {
    @Test func aKeptFilterIsTheOneComputedAfreshAndIsComputedOnce() {
        let filters = ResamplerFilters()
        var made = 0
        let make = {
            made += 1
            return Resampler.filter(inputRate: 48000, outputRate: 8000)
        }
        let first = filters.filter(inputRate: 48000, outputRate: 8000, make: make)
        let second = filters.filter(inputRate: 48000, outputRate: 8000, make: make)
        #expect(made == 1)
        let fresh = Resampler.filter(inputRate: 48000, outputRate: 8000)
        #expect(first.taps == fresh.taps && second.taps == fresh.taps)
        #expect(first.halfTaps == fresh.halfTaps && fresh.halfTaps == 67)
    }

    @Test func aProcessThatMeetsManyRatesKeepsOnlyTheLatestFew() {
        let filters = ResamplerFilters()
        var made = 0
        let rates = (0..<(ResamplerFilters.capacity + 3)).map { 9000 + 1000 * $0 }
        for rate in rates {
            _ = filters.filter(inputRate: rate, outputRate: 8000) {
                made += 1
                return Resampler.filter(inputRate: rate, outputRate: 8000)
            }
        }
        #expect(filters.count == ResamplerFilters.capacity)
        #expect(made == rates.count)
        // The latest is still kept; the oldest was let go and is made again.
        _ = filters.filter(inputRate: rates.last!, outputRate: 8000) {
            made += 1
            return Resampler.filter(inputRate: rates.last!, outputRate: 8000)
        }
        #expect(made == rates.count)
        _ = filters.filter(inputRate: rates[0], outputRate: 8000) {
            made += 1
            return Resampler.filter(inputRate: rates[0], outputRate: 8000)
        }
        #expect(made == rates.count + 1)
        #expect(filters.count == ResamplerFilters.capacity)
    }

    @Test func resamplersMadeOnSeveralThreadsAtOnceGiveTheSameSamples() async {
        // A rate pair no other test uses, so that the threads race to make its filter.
        let input = PCMAudio(sampleRate: 37_800, samples: (0..<37_800).map { Int16(truncatingIfNeeded: ($0 &* 7_919) % 20_011 - 10_000) })
        let outputs = await withTaskGroup(of: [Int16].self) { group in
            for _ in 0..<4 { group.addTask { Resampler.convert(input, to: 8000).samples } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs.count == 4 && outputs.allSatisfy { $0 == outputs[0] })
        #expect(abs(outputs[0].count - 8000) <= 1)
    }
}
