import Glibc
import SoundtraceFingerprint

/// Deterministic audio for tests: synthetic "music" (notes with harmonics and decaying envelopes),
/// noise, silence and WAV bytes. Doubles are fine here: fixtures only need to be the same within a run.
public enum TestAudio {
    /// A small seeded generator (64-bit LCG), so fixtures do not depend on the system's randomness.
    public struct Generator {
        public var state: UInt64
        public init(state: UInt64) { self.state = state }
        public mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        public mutating func unit() -> Double { Double(next() % 1_000_000) / 1_000_000 }
        public mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    }

    /// `seconds` of two-voice synthetic music at `rate` (plucked notes with three harmonics),
    /// different for every seed.
    public static func music(seed: UInt64, seconds: Double, rate: Int = 8000, amplitude: Double = 0.3) -> PCMAudio {
        var g = Generator(state: seed &* 2_654_435_761 &+ 17)
        let count = Int(seconds * Double(rate))
        var mix = [Double](repeating: 0, count: count)
        let scale = [0, 2, 4, 5, 7, 9, 11]
        for voice in 0..<2 {
            var t = 0
            while t < count {
                let length = Int(Double(rate) * (0.12 + 0.3 * g.unit()))
                let degree = scale[g.int(0...6)] + 12 * g.int(0...2)
                let midi = Double((voice == 0 ? 60 : 48) + degree)
                pluck(midi: midi, into: &mix, at: t, length: length, rate: rate, decay: 8, gain: voice == 0 ? 1 : 0.6)
                t += length
            }
        }
        return PCMAudio(sampleRate: rate, samples: mix.map { Int16(clamping: Int(($0 * amplitude * 32767 / 2).rounded())) })
    }

    /// Adds one plucked note (three harmonics, a 5 ms attack, exponential decay) to `mix` from
    /// sample `start` for at most `length` samples.
    private static func pluck(
        midi: Double, into mix: inout [Double], at start: Int, length: Int, rate: Int,
        decay: Double, gain: Double
    ) {
        let frequency = 440 * pow(2, (midi - 69) / 12)
        for i in 0..<min(length, mix.count - start) {
            let time = Double(i) / Double(rate)
            let envelope = exp(-decay * time) * min(1, time * 200)
            var s = 0.0
            for h in 1...3 where frequency * Double(h) < Double(rate) / 2 {
                s += sin(2 * Double.pi * frequency * Double(h) * time) / Double(h)
            }
            mix[start + i] += s * envelope * gain
        }
    }

    /// A line of decaying pure tones (no harmonics), one note at a time: a part that lives in one
    /// register and nowhere else. Each note lasts `noteSeconds` plus up to `noteSpread` more, on a
    /// MIDI note drawn from `notes`, and fades by `decay` per second; `rest` gives the silent frames
    /// after it from the note's length and the same generator.
    public static func toneLine(
        _ generator: Generator, seconds: Double, rate: Int = 8000, notes: ClosedRange<Int>, noteSeconds: Double,
        noteSpread: Double, decay: Double, rest: (_ noteFrames: Int, _ generator: inout Generator) -> Int
    ) -> [Double] {
        var g = generator
        var line = [Double](repeating: 0, count: Int(seconds * Double(rate)))
        var t = 0
        while t < line.count {
            let length = Int(Double(rate) * (noteSeconds + noteSpread * g.unit()))
            let frequency = 440 * pow(2, Double(notes.lowerBound + g.int(0...(notes.upperBound - notes.lowerBound)) - 69) / 12)
            for i in 0..<min(length, line.count - t) {
                let time = Double(i) / Double(rate)
                line[t + i] = sin(2 * Double.pi * frequency * time) * exp(-decay * time) * min(1, time * 100)
            }
            t += length + rest(length, &g)
        }
        return line
    }

    /// One voice per seed, mixed: a layer of one piece can be reused verbatim in another, as a
    /// shared loop or riff is. Each layer plays plucked notes with three harmonics in its own
    /// register (the layer's position in `layers` picks it: bass, middle, high, …). `tempo` plays
    /// the same notes faster (above 1) or slower at the same pitch, as another render would.
    public static func layeredMusic(
        layers: [UInt64], seconds: Double, rate: Int = 8000, amplitude: Double = 0.3, tempo: Double = 1
    ) -> PCMAudio {
        let count = Int(seconds * Double(rate))
        var mix = [Double](repeating: 0, count: count)
        let scale = [0, 2, 4, 5, 7, 9, 11]
        for (position, seed) in layers.enumerated() {
            var g = Generator(state: seed &* 0x9E37_79B9_7F4A_7C15 &+ 101)
            var t = 0
            while t < count {
                let length = Int(Double(rate) * (0.1 + 0.25 * g.unit()) / tempo)
                let midi = Double(40 + 12 * position + scale[g.int(0...6)] + 12 * g.int(0...1))
                pluck(midi: midi, into: &mix, at: t, length: length, rate: rate, decay: 7, gain: 1)
                t += length
            }
        }
        let scaleDown = amplitude * 32767 / Double(max(1, layers.count))
        return PCMAudio(sampleRate: rate, samples: mix.map { Int16(clamping: Int(($0 * scaleDown).rounded())) })
    }

    /// White noise with the given RMS in 16-bit units.
    public static func noise(seed: UInt64, count: Int, rms: Double, rate: Int = 8000) -> PCMAudio {
        var g = Generator(state: seed)
        let samples = (0..<count).map { _ -> Int16 in
            // Sum of uniforms: near-Gaussian with unit variance.
            let u = (0..<12).reduce(0.0) { sum, _ in sum + g.unit() } - 6
            return Int16(clamping: Int((u * rms).rounded()))
        }
        return PCMAudio(sampleRate: rate, samples: samples)
    }

    /// Pink-ish noise (equal energy per octave, Voss's method: a sum of random values held for
    /// 1, 2, 4, … samples), scaled to the given RMS in 16-bit units.
    public static func pinkNoise(seed: UInt64, count: Int, rms target: Double, rate: Int = 8000) -> PCMAudio {
        var g = Generator(state: seed)
        let rows = 12
        var held = (0..<rows).map { _ in g.unit() - 0.5 }
        var raw = [Double](repeating: 0, count: count)
        for i in 0..<count {
            for r in 0..<rows where i % (1 << r) == 0 { held[r] = g.unit() - 0.5 }
            raw[i] = held.reduce(0, +) + (g.unit() - 0.5)
        }
        let level = sqrt(raw.reduce(0) { $0 + $1 * $1 } / Double(max(1, count)))
        return PCMAudio(sampleRate: rate, samples: raw.map { Int16(clamping: Int(($0 / max(level, 1e-9) * target).rounded())) })
    }

    /// `signal` plus pink noise at `snrDB` relative to the signal's RMS.
    public static func addPinkNoise(_ signal: PCMAudio, snrDB: Double, seed: UInt64) -> PCMAudio {
        let level = rms(signal.samples[...]) / pow(10, snrDB / 20)
        let n = pinkNoise(seed: seed, count: signal.samples.count, rms: level, rate: signal.sampleRate)
        return PCMAudio(
            sampleRate: signal.sampleRate,
            samples: zip(signal.samples, n.samples).map { Int16(clamping: Int($0) + Int($1)) })
    }

    /// A crude speaker→room→microphone chain: band-pass 300–5000 Hz (one-pole filters), a few
    /// early reflections, and pink noise at `snrDB`. Deterministic for a seed.
    public static func micChain(_ signal: PCMAudio, snrDB: Double = 10, seed: UInt64) -> PCMAudio {
        let rate = Double(signal.sampleRate)
        let highCut = exp(-2 * Double.pi * 5000 / rate)
        let lowCut = exp(-2 * Double.pi * 300 / rate)
        var low = 0.0
        var previousIn = 0.0
        var high = 0.0
        var filtered = [Double](repeating: 0, count: signal.samples.count)
        for (i, sample) in signal.samples.enumerated() {
            let x = Double(sample)
            high = lowCut * (high + x - previousIn)  // high-pass above ~300 Hz
            previousIn = x
            low = (1 - highCut) * high + highCut * low  // low-pass below ~5 kHz
            filtered[i] = low
        }
        var room = filtered
        for (milliseconds, gain) in [(23.0, 0.45), (37.0, 0.32), (53.0, 0.22), (79.0, 0.15), (113.0, 0.1)] {
            let delay = Int(milliseconds * rate / 1000)
            for i in delay..<room.count { room[i] += gain * filtered[i - delay] }
        }
        let peak = room.reduce(1.0) { max($0, abs($1)) }
        let scale = min(1.0, 26000 / peak)
        let clean = PCMAudio(sampleRate: signal.sampleRate, samples: room.map { Int16(clamping: Int(($0 * scale).rounded())) })
        return addPinkNoise(clean, snrDB: snrDB, seed: seed)
    }

    /// Mono 16-bit little-endian bytes without a header, as ALSA's `file` plugin reads them.
    public static func rawBytes(_ samples: [Int16]) -> [UInt8] { int16Bytes(samples) }

    /// A minimal mono 16-bit WAV file.
    public static func wavFile(_ audio: PCMAudio) -> [UInt8] {
        wav(rate: UInt32(audio.sampleRate), data: int16Bytes(audio.samples))
    }

    public static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return sqrt(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count))
    }

    /// `signal` plus white noise at `snrDB` relative to the signal's RMS.
    public static func addNoise(_ signal: PCMAudio, snrDB: Double, seed: UInt64) -> PCMAudio {
        let level = rms(signal.samples[...]) / pow(10, snrDB / 20)
        let n = noise(seed: seed, count: signal.samples.count, rms: level, rate: signal.sampleRate)
        return PCMAudio(
            sampleRate: signal.sampleRate,
            samples: zip(signal.samples, n.samples).map { Int16(clamping: Int($0) + Int($1)) })
    }

    public static func excerpt(_ audio: PCMAudio, from start: Int, count: Int) -> PCMAudio {
        PCMAudio(sampleRate: audio.sampleRate, samples: Array(audio.samples[start..<(start + count)]))
    }

    /// RIFF/WAVE bytes with the given header fields and raw sample bytes.
    public static func wav(
        formatTag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 8000, bits: UInt16 = 16,
        data: [UInt8], blockAlign: UInt16? = nil, extraChunks: [UInt8] = [], dataSize: UInt32? = nil
    ) -> [UInt8] {
        var w: [UInt8] = []
        func u16(_ v: UInt16) { w += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { w += (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
        let align = blockAlign ?? channels * bits / 8
        w += Array("RIFF".utf8)
        u32(UInt32(4 + 24 + extraChunks.count + 8 + data.count))
        w += Array("WAVE".utf8) + Array("fmt ".utf8)
        u32(16)
        u16(formatTag)
        u16(channels)
        u32(rate)
        u32(rate * UInt32(align))
        u16(align)
        u16(bits)
        w += extraChunks + Array("data".utf8)
        u32(dataSize ?? UInt32(data.count))
        w += data
        return w
    }

    public static func int16Bytes(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { [UInt8(UInt16(bitPattern: $0) & 0xFF), UInt8(UInt16(bitPattern: $0) >> 8)] }
    }

    /// A catalog built in memory from references with synthetic audio.
    public static func catalog(_ items: [(id: String, audio: PCMAudio)], parameters: EngineParameters = EngineParameters()) throws -> (
        Catalog, [UInt8]
    ) {
        let inputs = items.map { item in
            CatalogBuilder.Input(
                audio: ReferenceAudio(
                    id: item.id, title: "Title \(item.id)", creator: "Tests", license: "CC0-1.0",
                    sourceFile: "\(item.id).wav", metadata: [.init(key: "kind", value: "synthetic")]),
                samples: item.audio, sourceSHA256: SHA256.digest(int16Bytes(item.audio.samples)))
        }
        let fingerprints = try inputs.map { try CatalogBuilder.fingerprint(of: $0, parameters: parameters) }
        let bytes = try CatalogBuilder.encode(version: 3, inputs: inputs, fingerprints: fingerprints, parameters: parameters)
        return (try CatalogFile.decode(bytes, path: "memory.catalog", parameters: parameters), bytes)
    }

    /// The verdict for `audio` at the engine's rate, fed in capture-sized buffers.
    public static func match(_ audio: PCMAudio, _ catalog: Catalog, buffer: Int = 1000) throws -> Verdict {
        let matcher = try QueryMatcher(catalog: catalog)
        var start = 0
        while start < audio.samples.count {
            let end = min(audio.samples.count, start + buffer)
            matcher.push(Array(audio.samples[start..<end]))
            start = end
        }
        matcher.finish()
        return matcher.verdict()
    }
}
