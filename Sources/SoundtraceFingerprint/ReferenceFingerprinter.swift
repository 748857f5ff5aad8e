/// What the catalog keeps of one reference recording: its landmarks, in the order they are found,
/// the number of frames analysed, one signature per frame and the band levels of every
/// `levelStepFrames`-th frame.
public struct ReferenceFingerprint: Sendable {
    /// `CatalogBuilder.encode` empties the copy it owns once they are in the index.
    public internal(set) var landmarks: [Landmark]
    public let frames: Int
    public let signatures: [UInt16]
    public let levels: [UInt32]
}

/// Turns a whole reference recording (at the engine's rate) into its fingerprint, as the catalog
/// builder indexes it.
public enum ReferenceFingerprinter {
    public enum Failure: Error, Equatable {
        case wrongSampleRate(Int)
        case fftUnavailable
    }

    public static func fingerprint(of audio: PCMAudio, parameters: EngineParameters) throws(Failure) -> ReferenceFingerprint {
        guard audio.sampleRate == parameters.sampleRate else { throw .wrongSampleRate(audio.sampleRate) }
        let builder = try Builder(parameters: parameters)
        builder.push(audio.samples)
        return builder.finish()
    }

    /// A fingerprint made a piece at a time, from contiguous samples at the engine's rate: the
    /// same fingerprint as the whole recording gives, however it is cut (`RecordingStream` feeds
    /// one a block of a file at a time, so a long recording never has to be held whole).
    public final class Builder {
        private let spectrogram: Spectrogram
        private let picker: PeakPicker
        private let pairer: PeakPairer
        private let signer: SignatureExtractor
        private var magnitudes = [UInt16](repeating: 0, count: SignatureExtractor.bitsPerFrame)
        private var signatures: [UInt16] = []
        private var levels: ReferenceLevels.Collector
        private var landmarks: [Landmark] = []

        public init(parameters: EngineParameters) throws(Failure) {
            guard let spectrogram = Spectrogram(parameters: parameters) else { throw .fftUnavailable }
            self.spectrogram = spectrogram
            picker = PeakPicker(parameters: parameters, peaksPerBlock: parameters.referencePeaksPerBlock)
            pairer = PeakPairer(
                minFrames: parameters.minPairFrames, maxFrames: parameters.maxPairFrames,
                maxBins: parameters.maxPairBins, fanOut: parameters.referenceFanOut)
            signer = SignatureExtractor(parameters: parameters)
            levels = ReferenceLevels.Collector(parameters: parameters)
        }

        /// The next samples of the recording.
        public func push(_ samples: [Int16]) {
            spectrogram.push(samples) { frame, row in
                signatures.append(signer.push(power: spectrogram.lastPower, magnitudes: &magnitudes))
                levels.push(power: spectrogram.lastPower)
                picker.push(frame: frame, logPower: row, emit: addPeak)
            }
        }

        /// Ends the recording: the last peaks are picked with what look-ahead there is.
        public func finish() -> ReferenceFingerprint {
            picker.finish(emit: addPeak)
            return ReferenceFingerprint(
                landmarks: landmarks, frames: spectrogram.framesProduced, signatures: signatures,
                levels: levels.words())
        }

        private func addPeak(_ peak: Peak) {
            pairer.push(peak) { anchor, target in
                guard
                    let hash = LandmarkHash.make(
                        anchorBinQ4: anchor.binQ4, targetBinQ4: target.binQ4,
                        deltaTimeQ4: target.timeQ4 - anchor.timeQ4)
                else { return }
                landmarks.append(Landmark(hash: hash, frame: max(0, roundedDivide(anchor.timeQ4, 16))))
            }
        }
    }
}
