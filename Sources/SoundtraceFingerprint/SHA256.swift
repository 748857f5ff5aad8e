import CLibmd

/// SHA-256 (FIPS 180-4) through libmd, the BSD message-digest library Debian ships: the catalog's
/// content hash and the reference recordings' checksums. Linux has no CryptoKit, and a catalog
/// must not need libcrypto.
public struct SHA256: Sendable {
    // A value type over libmd's plain C context (a struct of integers and a byte buffer): copying
    // the struct copies the whole state, as a hasher value should.
    private var context = SHA2_CTX()

    public init() { SHA256Init(&context) }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard !bytes.isEmpty else { return }
        let whole: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            SHA256Update(&context, buffer.baseAddress, buffer.count)
        }
        if whole == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { SHA256Update(&context, $0.baseAddress, $0.count) }
        }
    }

    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { SHA256Final($0.baseAddress, &context) }
        return digest
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
}
