/// Streaming pairing of peaks into landmarks: each anchor pairs with the first `fanOut` later peaks
/// (in time, then frequency order) inside its target zone.
final class PeakPairer {
    private let minFrames: Int
    private let maxFrames: Int
    private let maxBins: Int
    private let fanOut: Int
    private var anchors: [(peak: Peak, pairs: Int)] = []

    init(minFrames: Int, maxFrames: Int, maxBins: Int, fanOut: Int) {
        self.minFrames = minFrames
        self.maxFrames = maxFrames
        self.maxBins = maxBins
        self.fanOut = fanOut
    }

    /// Adds the next peak (peaks must come in time order) and emits the pairs it completes.
    func push(_ peak: Peak, emit: (Peak, Peak) -> Void) {
        anchors.removeAll { peak.frame - $0.peak.frame > maxFrames || $0.pairs >= fanOut }
        for i in anchors.indices {
            let anchor = anchors[i].peak
            let dt = peak.frame - anchor.frame
            guard dt >= minFrames, abs(peak.bin - anchor.bin) <= maxBins else { continue }
            emit(anchor, peak)
            anchors[i].pairs += 1
        }
        anchors.append((peak, 0))
    }
}

/// The landmark hash: anchor bin, bin difference plus its bias, frame difference, from the high bits
/// down, in the widths `EngineParameters` fixes for the algorithm revision (8, 7 and 6 bits).
enum LandmarkHash {
    private static let binDifferenceBits = EngineParameters.hashBinDifferenceBits
    private static let frameDifferenceBits = EngineParameters.hashFrameDifferenceBits
    /// Stored bin differences are biased to be non-negative: -63...63 becomes 1...127.
    private static let binDifferenceBias = 1 << (binDifferenceBits - 1)

    /// Hash of a pair given positions in sixteenths of a bin and of a frame, or nil outside the layout.
    static func make(anchorBinQ4: Int, targetBinQ4: Int, deltaTimeQ4: Int) -> UInt32? {
        let f1 = roundedDivide(anchorBinQ4, 16)
        let df = roundedDivide(targetBinQ4 - anchorBinQ4, 16)
        let dt = roundedDivide(deltaTimeQ4, 16)
        guard (0..<(1 << EngineParameters.hashAnchorBinBits)).contains(f1),
            (1 - binDifferenceBias...binDifferenceBias - 1).contains(df),
            (0..<(1 << frameDifferenceBits)).contains(dt)
        else { return nil }
        return UInt32(f1) << (binDifferenceBits + frameDifferenceBits) | UInt32(df + binDifferenceBias) << frameDifferenceBits | UInt32(dt)
    }
}

/// A landmark as stored for a reference: its hash and the frame of its anchor.
public struct Landmark: Equatable, Sendable {
    public let hash: UInt32
    /// Eight bytes a landmark rather than sixteen: a 100-hour build holds 48 million of them.
    private let storedFrame: UInt32
    public var frame: Int { Int(storedFrame) }

    /// `frame` is at least zero; one beyond 32 bits is kept as the largest, which no index holds.
    public init(hash: UInt32, frame: Int) {
        self.hash = hash
        storedFrame = UInt32(clamping: frame)
    }
}
