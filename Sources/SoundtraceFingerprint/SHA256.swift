/// SHA-256 (FIPS 180-4), small and dependency-free: the catalog's content hash and the reference
/// recordings' checksums. Linux has no CryptoKit, and a catalog must not need libcrypto.
public struct SHA256: Sendable {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    private var state: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    public init() { block.reserveCapacity(64) }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        length &+= UInt64(bytes.count)
        var rest = bytes[...]
        // Whole blocks straight from contiguous input, without copying them into `block`.
        if block.isEmpty {
            let handled: Int? = rest.withContiguousStorageIfAvailable { buffer -> Int in
                var offset = 0
                while buffer.count - offset >= 64 {
                    compress(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[offset..<(offset + 64)])))
                    offset += 64
                }
                return offset
            }
            if let handled { rest = rest.dropFirst(handled) }
        }
        for byte in rest {
            block.append(byte)
            if block.count == 64 {
                let copy = block
                copy.withUnsafeBytes { compress($0) }
                block.removeAll(keepingCapacity: true)
            }
        }
    }

    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        block.append(0x80)
        if block.count > 56 {
            while block.count < 64 { block.append(0) }
            let copy = block
            copy.withUnsafeBytes { compress($0) }
            block.removeAll(keepingCapacity: true)
        }
        while block.count < 56 { block.append(0) }
        for i in (0..<8).reversed() { block.append(UInt8((bitLength >> (UInt64(i) * 8)) & 0xFF)) }
        let copy = block
        copy.withUnsafeBytes { compress($0) }
        return state.flatMap { word in (0..<4).reversed().map { UInt8((word >> (UInt32($0) * 8)) & 0xFF) } }
    }

    public static func digest<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    /// One 64-byte block.
    private mutating func compress(_ input: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            Self.k.withUnsafeBufferPointer { k in
                compress(input, w, k)
            }
        }
    }

    private mutating func compress(_ input: UnsafeRawBufferPointer, _ w: UnsafeMutableBufferPointer<UInt32>,
                                   _ k: UnsafeBufferPointer<UInt32>) {
        for i in 0..<16 {
            w[i] = UInt32(input[4 * i]) << 24 | UInt32(input[4 * i + 1]) << 16 | UInt32(input[4 * i + 2]) << 8 | UInt32(input[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
            let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var a = state[0], b = state[1], c = state[2], d = state[3]
        var e = state[4], f = state[5], g = state[6], h = state[7]
        for i in 0..<64 {
            let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ majority
            h = g; g = f; f = e; e = d &+ t1
            d = c; c = b; b = a; a = t1 &+ t2
        }
        state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
        state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
