/// A bounds-checked little-endian cursor over bytes: every read either succeeds or reports how
/// many bytes were missing, so malformed files become errors, never crashes.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    struct OutOfBytes: Error {
        let needed: Int
        let available: Int
    }

    mutating func skip(_ count: Int) throws(OutOfBytes) {
        guard count >= 0, count <= remaining else { throw OutOfBytes(needed: count, available: remaining) }
        position += count
    }

    mutating func bytes(_ count: Int) throws(OutOfBytes) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw OutOfBytes(needed: count, available: remaining) }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func u8() throws(OutOfBytes) -> UInt8 {
        guard remaining >= 1 else { throw OutOfBytes(needed: 1, available: remaining) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws(OutOfBytes) -> UInt16 {
        guard remaining >= 2 else { throw OutOfBytes(needed: 2, available: remaining) }
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    mutating func u32() throws(OutOfBytes) -> UInt32 {
        guard remaining >= 4 else { throw OutOfBytes(needed: 4, available: remaining) }
        defer { position += 4 }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[position + i]) << (8 * UInt32(i)) }
        return value
    }

    mutating func u64() throws(OutOfBytes) -> UInt64 {
        let low = try u32()
        let high = try u32()
        return UInt64(low) | UInt64(high) << 32
    }

    mutating func fourCC() throws(OutOfBytes) -> String {
        let raw = try bytes(4)
        return String(decoding: raw, as: UTF8.self)
    }
}

/// Little-endian byte output, the writing side of ByteReader.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(v & 0xFF))
        bytes.append(UInt8(v >> 8))
    }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    mutating func u64(_ v: UInt64) {
        u32(UInt32(v & 0xFFFF_FFFF))
        u32(UInt32(v >> 32))
    }
    mutating func append<S: Sequence>(contentsOf s: S) where S.Element == UInt8 { bytes.append(contentsOf: s) }
    mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }
    /// The bytes written, handed over rather than shared, so that changing them copies nothing.
    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
