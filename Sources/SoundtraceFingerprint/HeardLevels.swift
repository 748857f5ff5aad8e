/// The smoothed band levels of every frame a query heard (`BandLevelExtractor`, every speed
/// hypothesis's layout), kept in blocks of `framesPerBlock` frames. One array grown frame by frame
/// reallocates to about twice its size, and while it moves both copies are live: for a 10 s
/// session that was the largest part of the daemon's listening peak (measured with massif: 1.2 of
/// 1.7 MB of heap). Blocks grow the store by a fixed step and never copy what was heard. A frame
/// keeps each distinct band once (`BandLevelExtractor.distinctBands`), and a layout's band is
/// read through `column`: the same values as keeping every layout whole, in less than half the memory.
struct HeardLevels {
    /// Values kept per frame: the distinct bands.
    let frameStride: Int
    /// Where band `index` (band + layout × bands) of a frame is kept among its `frameStride` values.
    private let column: [Int]
    /// About a second of frames; a block (23 KB with today's layout) stays under the daemon's mmap
    /// threshold, so blocks come from the heap that `malloc_trim` gives back after a session.
    static let framesPerBlock = 64
    private var blocks: [[UInt64]] = []
    private(set) var frames = 0

    /// A store of frames of `column.count` bands, band `index` kept at `column[index]` of the
    /// frame's `frameStride` values.
    init(frameStride: Int, column: [Int]) {
        precondition(frameStride > 0 && column.allSatisfy { (0..<frameStride).contains($0) })
        self.frameStride = frameStride
        self.column = column
    }

    /// Adds the next frame's levels; `levels` holds `frameStride` values.
    mutating func append(_ levels: [UInt64]) {
        precondition(levels.count == frameStride)
        if frames % Self.framesPerBlock == 0 {
            var block: [UInt64] = []
            block.reserveCapacity(Self.framesPerBlock * frameStride)
            blocks.append(block)
        }
        blocks[blocks.count - 1].append(contentsOf: levels)
        frames += 1
    }

    /// Values the store has room for: at most one block beyond what was heard.
    var capacity: Int { blocks.reduce(0) { $0 + $1.capacity } }

    /// Value `index` (band + layout × bands) of frame `frame`.
    @inline(__always) subscript(frame: Int, index: Int) -> UInt64 {
        blocks[frame / Self.framesPerBlock][(frame % Self.framesPerBlock) * frameStride + column[index]]
    }
}
