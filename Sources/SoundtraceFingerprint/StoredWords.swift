/// Read-only little-endian words (`UInt16` or `UInt32`), as the catalog file stores them, in memory
/// an owner keeps alive: the mapped catalog file for a loaded catalog (so its index, signatures and
/// levels are never copied: their pages stay file-backed, which the kernel can drop and read again,
/// instead of anonymous memory that grows with the catalog), or a heap copy for words built in
/// memory. Every read is bounds-checked, like an array's, so a mapped file that changed under the
/// reader can stop the program but never make it read out of bounds.
public struct StoredWords<Word: FixedWidthInteger & UnsignedInteger & BitwiseCopyable>: RandomAccessCollection, Equatable,
    @unchecked Sendable
{
    // @unchecked: the words are never written after creation, and `owner` keeps them alive.
    private let owner: AnyObject
    /// The first word. Not necessarily aligned: in the file the sections follow variable-length
    /// text. A plain pointer rather than a buffer's optional base address, so that a read in the
    /// matcher's inner loop is one bounds check and one load, as an array's is.
    private let base: UnsafeRawPointer
    public let count: Int

    /// Words in `bytes` (a whole number of words long), which stay valid as long as `owner` lives.
    init(_ bytes: UnsafeRawBufferPointer, owner: AnyObject) {
        precondition(bytes.count % MemoryLayout<Word>.size == 0)
        self.owner = owner
        // An empty buffer may have no address; with no words it is never read, so any will do.
        base = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: MemoryLayout<Word>.size)!
        count = bytes.count / MemoryLayout<Word>.size
    }

    /// A heap copy of `values`.
    init(copying values: [Word]) {
        let copy = HeapBytes(count: MemoryLayout<Word>.size * values.count)
        for (i, value) in values.enumerated() {
            copy.bytes.storeBytes(of: value.littleEndian, toByteOffset: MemoryLayout<Word>.size * i, as: Word.self)
        }
        self.init(UnsafeRawBufferPointer(copy.bytes), owner: copy)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    @inline(__always)
    public subscript(position: Int) -> Word {
        // One unsigned comparison covers both ends, as an array's bounds check does.
        precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "stored word out of range")
        return Word(littleEndian: base.loadUnaligned(fromByteOffset: MemoryLayout<Word>.size * position, as: Word.self))
    }

    /// The words' bytes, for loops that read several words at once (the caller checks its bounds).
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count * MemoryLayout<Word>.size))
    }

    public static func == (a: StoredWords, b: StoredWords) -> Bool { a.elementsEqual(b) }
}

/// The landmark index's words (`CatalogIndex`).
public typealias IndexWords = StoredWords<UInt32>
