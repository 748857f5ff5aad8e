import Glibc
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct FixedMathTests {
    @Test func cosineAndSineHitExactAnglesAndAgreeWithLibm() {
        let scale: Int64 = 1 << 30
        #expect(FixedTrig.cos(numerator: 0, denominator: 8, scale: scale) == scale)
        #expect(FixedTrig.cos(numerator: 2, denominator: 8, scale: scale) == 0)
        #expect(FixedTrig.cos(numerator: 4, denominator: 8, scale: scale) == -scale)
        #expect(FixedTrig.sin(numerator: 1, denominator: 12, scale: scale) == scale / 2)
        #expect(FixedTrig.cos(numerator: -1, denominator: 6, scale: scale) == scale / 2)
        for k in stride(from: -700, through: 700, by: 7) {
            let expected = (cos(2 * Double.pi * Double(k) / 523) * Double(scale)).rounded()
            #expect(abs(Double(FixedTrig.cos(numerator: k, denominator: 523, scale: scale)) - expected) <= 1)
            let expectedSine = (sin(2 * Double.pi * Double(k) / 523) * Double(scale)).rounded()
            #expect(abs(Double(FixedTrig.sin(numerator: k, denominator: 523, scale: scale)) - expectedSine) <= 1)
        }
    }

    @Test func log2IsExactAtPowersOfTwoAndMonotonic() {
        for bit in 1..<63 {
            #expect(FixedLog.log2Q8(UInt64(1) << UInt64(bit)) == Int32(bit * 256))
        }
        var previous: Int32 = 0
        for value in stride(from: UInt64(1), to: 1 << 20, by: 97) {
            let log = FixedLog.log2Q8(value)
            #expect(log >= previous)
            #expect(abs(Double(log) / 256 - log2(Double(value))) < 0.02)
            previous = log
        }
        #expect(FixedLog.log2Q8(0) == 0)
    }

    @Test func roundedDivisionRoundsHalvesAwayFromZero() {
        #expect(roundedDivide(5, 2) == 3)
        #expect(roundedDivide(-5, 2) == -3)
        #expect(roundedDivide(5, -2) == -3)
        #expect(roundedDivide(-5, -2) == 3)
        #expect(roundedDivide(4, 3) == 1)
        #expect(roundedDivide(-4, 3) == -1)
    }

    @Test func parabolicInterpolationFindsTheVertex() {
        #expect(PeakPicker.parabolicOffsetQ4(10, 20, 10) == 0)
        #expect(PeakPicker.parabolicOffsetQ4(10, 20, 20) == 8)
        #expect(PeakPicker.parabolicOffsetQ4(20, 20, 10) == -8)
        #expect(PeakPicker.parabolicOffsetQ4(20, 10, 20) == 0)  // a minimum: no refinement
    }

    @Test func sha256MatchesPublishedVectors() {
        #expect(SHA256.hex(SHA256.digest([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(SHA256.digest(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var hasher = SHA256()
        for _ in 0..<1000 { hasher.update([UInt8](repeating: 0x61, count: 1000)) }
        #expect(SHA256.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha256GivesTheSameDigestHoweverTheBytesArrive() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.digest(bytes)
        // Not contiguous (copied first), a slice, uneven pieces, empty pieces, raw memory, a copy mid-way.
        #expect(SHA256.digest(bytes.lazy.map { $0 }) == whole)
        #expect(SHA256.digest(bytes[0..<1000]) == whole)
        var pieces = SHA256()
        var start = 0
        for size in [0, 1, 63, 64, 65, 0, 127, 300] {
            pieces.update(bytes[start..<(start + size)])
            start += size
        }
        var forked = pieces
        pieces.update(bytes[start...])
        #expect(pieces.finalize() == whole)
        forked.update(bytes[start...])
        #expect(forked.finalize() == whole)
        #expect(bytes.withUnsafeBytes { SHA256.digest($0) } == whole)
    }
}

@Suite struct SignatureMathTests {
    @Test func integerSquareRootIsTheFloor() {
        for n in [0, 1, 2, 3, 4, 15, 16, 17, 99, 100, 101, 1 << 40, (1 << 40) - 1] {
            let r = integerSquareRoot(n)
            #expect(r * r <= n && (r + 1) * (r + 1) > n)
        }
    }

    @Test func signatureBitsFollowTheBandMotion() {
        // A tone that moves up from band 3 to band 4 makes the difference of bands 3 and 4 fall:
        // bit 3 clear; silence elsewhere leaves every other difference unchanged: bits clear.
        let p = EngineParameters()
        let extractor = SignatureExtractor(parameters: p)
        var magnitudes = [UInt16](repeating: 0, count: SignatureExtractor.bitsPerFrame)
        let bins = p.fftSize / 2 + 1
        func frame(toneBin: Int) -> [UInt64] {
            var power = [UInt64](repeating: 1 << 20, count: bins)
            power[toneBin] = 1 << 40
            return power
        }
        let low = (p.signatureBandEdges[3] + p.signatureBandEdges[4]) / 2
        let high = (p.signatureBandEdges[4] + p.signatureBandEdges[5]) / 2
        var last: UInt16 = 0
        for _ in 0..<20 { last = extractor.push(power: frame(toneBin: low), magnitudes: &magnitudes) }
        #expect(last == 0)
        let moved = extractor.push(power: frame(toneBin: high), magnitudes: &magnitudes)
        #expect(moved & (1 << 3) == 0)
        #expect(moved & (1 << 4) != 0)  // band 4 grew against band 5
        #expect(magnitudes[3] > 0 && magnitudes[4] > 0)
        #expect(magnitudes[10] == 0)
    }
}
