/// Read-only little-endian 32-bit words, as the catalog file stores them, in memory an owner keeps
/// alive: the mapped catalog file for a loaded catalog (so its index is never copied), or a heap
/// copy for an index built in memory. Every read is bounds-checked, like an array's, so a mapped
/// file that changed under the reader can stop the program but never make it read out of bounds.
public struct IndexWords: RandomAccessCollection, Equatable, @unchecked Sendable {
    // @unchecked: the words are never written after creation, and `owner` keeps them alive.
    private let owner: AnyObject
    /// The first word. Not necessarily 4-byte aligned: in the file the index follows variable-length
    /// text. A plain pointer rather than a buffer's optional base address, so that a read in the
    /// matcher's inner loop is one bounds check and one load, as an array's is.
    private let base: UnsafeRawPointer
    public let count: Int

    /// Words in `bytes` (a multiple of 4 bytes long), which stay valid as long as `owner` lives.
    init(_ bytes: UnsafeRawBufferPointer, owner: AnyObject) {
        precondition(bytes.count % 4 == 0)
        self.owner = owner
        // An empty buffer may have no address; with no words it is never read, so any will do.
        base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 4)!
        count = bytes.count / 4
    }

    /// A heap copy of `values`.
    init(copying values: [UInt32]) {
        let copy = HeapBytes(count: 4 * values.count)
        for (i, value) in values.enumerated() {
            copy.bytes.storeBytes(of: value.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
        }
        self.init(UnsafeRawBufferPointer(copy.bytes), owner: copy)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inline(__always)
    public subscript(position: Int) -> UInt32 {
        // One unsigned comparison covers both ends, as an array's bounds check does.
        precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "index word out of range")
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 4 * position, as: UInt32.self))
    }

    public static func == (a: IndexWords, b: IndexWords) -> Bool { a.elementsEqual(b) }
}
