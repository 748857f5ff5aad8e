/// Bytes allocated on the heap and freed with their last user: the owner of index words that do
/// not come from a mapped file (an index built in memory, or a catalog decoded from an array).
final class HeapBytes {
    private let allocation: UnsafeMutableRawBufferPointer
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int) {
        allocation = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 8)
        bytes = UnsafeMutableRawBufferPointer(rebasing: allocation[0..<count])
    }

    /// A copy of `source`.
    convenience init(copying source: UnsafeRawBufferPointer) {
        self.init(count: source.count)
        if source.count > 0 { bytes.copyMemory(from: source) }
    }

    deinit { allocation.deallocate() }
}
