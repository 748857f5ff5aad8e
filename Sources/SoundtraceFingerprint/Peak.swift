/// A spectral peak: a time–frequency point that stands out from its surroundings.
public struct Peak: Equatable, Sendable {
    /// Frame index and FFT bin of the local maximum.
    public let frame: Int
    public let bin: Int
    /// Position refined by parabolic interpolation, in sixteenths of a frame and of a bin.
    public let timeQ4: Int
    public let binQ4: Int
    /// Whitened log2-power contrast (Q8), used to keep the strongest peaks.
    public let strength: Int32
}
