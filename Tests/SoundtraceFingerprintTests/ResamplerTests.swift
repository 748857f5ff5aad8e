import Glibc
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct ResamplerTests {
    static func tone(_ frequency: Double, rate: Int, seconds: Double, amplitude: Double = 10000) -> PCMAudio {
        let n = Int(seconds * Double(rate))
        return PCMAudio(
            sampleRate: rate,
            samples: (0..<n).map {
                Int16((amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate))).rounded())
            })
    }

    /// Amplitude of `frequency` in `audio` by correlation with a sine and cosine.
    static func amplitude(of frequency: Double, in audio: PCMAudio) -> Double {
        var s = 0.0
        var c = 0.0
        let slice = audio.samples.dropFirst(200).dropLast(200)
        for (i, x) in zip(slice.indices, slice) {
            let phase = 2 * Double.pi * frequency * Double(i) / Double(audio.sampleRate)
            s += Double(x) * sin(phase)
            c += Double(x) * cos(phase)
        }
        return 2 * sqrt(s * s + c * c) / Double(slice.count)
    }

    @Test(arguments: [11025, 16000, 22050, 44100, 48000])
    func keepsPassBandTonesAndRejectsAliases(rate: Int) {
        let out = Resampler.convert(Self.tone(1000, rate: rate, seconds: 1), to: 8000)
        #expect(abs(out.samples.count - 8000) <= 1)
        let kept = Self.amplitude(of: 1000, in: out)
        #expect(abs(kept - 10000) < 150, "1 kHz at \(rate) Hz came out at \(kept)")
        if rate >= 16000 {
            // 6 kHz cannot be represented at 8 kHz; it would fold to 2 kHz without the filter.
            let aliased = Resampler.convert(Self.tone(6000, rate: rate, seconds: 1), to: 8000)
            #expect(Self.amplitude(of: 2000, in: aliased) < 100)
        }
    }

    @Test func unityGainAtDC() {
        let out = Resampler.convert(PCMAudio(sampleRate: 44100, samples: [Int16](repeating: 12345, count: 44100)), to: 8000)
        #expect(out.samples[100..<7900].allSatisfy { $0 == 12345 })
    }

    /// Each output sample of an impulse is the kernel's tap that lands on it, rounded: the
    /// filter's alignment to the input, including the zero taps the resampler puts in front of
    /// each kernel so that it is whole vectors long.
    @Test(arguments: [11025, 16000, 44100, 48000])
    func anImpulseComesOutAsTheKernelAtItsPlace(rate: Int) {
        let at = 300
        var input = [Int16](repeating: 0, count: 700)
        input[at] = 16384
        let out = Resampler.convert(PCMAudio(sampleRate: rate, samples: input), to: 8000).samples
        let filter = Resampler.filter(inputRate: rate, outputRate: 8000)
        let half = filter.halfTaps
        for (n, sample) in out.enumerated() {
            // The input sample at or before output n, and the 64th of a sample after it.
            let exact = n * rate
            var index = exact / 8000
            var phase = ((exact % 8000) * 64 + 4000) / 8000
            if phase == 64 {
                index += 1
                phase = 0
            }
            let tap = at - index + half - 1
            let weight = (0..<2 * half).contains(tap) ? Int(filter.taps[phase][tap]) : 0
            #expect(Int(sample) == (weight * 16384 + (1 << 14)) >> 15, "output \(n) at \(rate) Hz")
        }
    }

    @Test func streamingGivesTheSameSamplesHoweverTheInputIsSplit() {
        let input = TestAudio.music(seed: 5, seconds: 3, rate: 44100)
        let whole = Resampler.convert(input, to: 8000).samples
        var resampler = Resampler(inputRate: 44100, outputRate: 8000)
        var pieces: [Int16] = []
        var g = TestAudio.Generator(state: 9)
        var start = 0
        while start < input.samples.count {
            let end = min(input.samples.count, start + g.int(1...5000))
            pieces += resampler.process(Array(input.samples[start..<end]))
            start = end
        }
        pieces += resampler.finish()
        #expect(pieces == whole)
    }

    @Test func sameRateIsUntouched() {
        let input = TestAudio.music(seed: 1, seconds: 1)
        #expect(Resampler.convert(input, to: 8000) == input)
    }

    /// The vector path sums in 32 bits, its taps in 16; at full scale, at every rate a microphone
    /// or a catalog recording comes in, it must give exactly what 64-bit sums give (catalogs stay
    /// byte-identical).
    @Test(arguments: [11025, 16000, 22050, 32000, 44100, 48000])
    func thirtyTwoBitSumsGiveTheSameSamplesAsSixtyFourBitSums(rate: Int) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let input = (0..<(rate / 2)).map { i -> Int16 in
            // Full-scale square bursts and random samples: the largest sums a kernel can make.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (i / 37) % 3 == 0 ? ((i / 5) % 2 == 0 ? Int16.max : Int16.min) : Int16(truncatingIfNeeded: state >> 48)
        }
        var fast = Resampler(inputRate: rate, outputRate: 8000)
        var reference = Resampler(inputRate: rate, outputRate: 8000, allow32BitSums: false)
        #expect(fast.usesSixteenBitTaps && !reference.usesSixteenBitTaps)
        let a = fast.process(input) + fast.finish()
        let b = reference.process(input) + reference.finish()
        #expect(a.count == b.count && a == b)
    }
}

@Suite struct ResamplerOutputCountTests {
    /// `catalog build` reports a reused recording's length from its header: the count must be what
    /// resampling the whole recording gives, at every rate and length, short or not.
    @Test(arguments: [8000, 11025, 16000, 22050, 32000, 44100, 48000])
    func theCountFromTheHeaderIsTheCountResamplingGives(rate: Int) {
        for length in [0, 1, 2, 7, 100, 4410, 44_101, 96_001] {
            let audio = PCMAudio(sampleRate: rate, samples: (0..<length).map { Int16(truncatingIfNeeded: $0 &* 7919) })
            let resampled = Resampler.convert(audio, to: 8000)
            #expect(
                Resampler.outputCount(inputCount: length, inputRate: rate, outputRate: 8000) == resampled.samples.count,
                "\(rate) Hz, \(length)")
        }
    }
}
