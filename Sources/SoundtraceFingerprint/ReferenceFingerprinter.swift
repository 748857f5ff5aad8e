/// What the catalog keeps of one reference recording: its landmarks, in the order they are found,
/// the number of frames analysed, one signature per frame and the band levels of every
/// `levelStepFrames`-th frame.
public struct ReferenceFingerprint: Sendable {
    public let landmarks: [Landmark]
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
        guard let spectrogram = Spectrogram(parameters: parameters) else { throw .fftUnavailable }
        let picker = PeakPicker(parameters: parameters, peaksPerBlock: parameters.referencePeaksPerBlock)
        let pairer = PeakPairer(
            minFrames: parameters.minPairFrames, maxFrames: parameters.maxPairFrames,
            maxBins: parameters.maxPairBins, fanOut: parameters.referenceFanOut)
        let signer = SignatureExtractor(parameters: parameters)
        var magnitudes = [UInt16](repeating: 0, count: SignatureExtractor.bitsPerFrame)
        var signatures: [UInt16] = []
        var levels = ReferenceLevels.Collector(parameters: parameters)
        var result: [Landmark] = []
        let onPeak: (Peak) -> Void = { peak in
            pairer.push(peak) { anchor, target in
                guard
                    let hash = LandmarkHash.make(
                        anchorBinQ4: anchor.binQ4, targetBinQ4: target.binQ4,
                        deltaTimeQ4: target.timeQ4 - anchor.timeQ4)
                else { return }
                result.append(Landmark(hash: hash, frame: max(0, roundedDivide(anchor.timeQ4, 16))))
            }
        }
        spectrogram.push(audio.samples) { frame, row in
            signatures.append(signer.push(power: spectrogram.lastPower, magnitudes: &magnitudes))
            levels.push(power: spectrogram.lastPower)
            picker.push(frame: frame, logPower: row, emit: onPeak)
        }
        picker.finish(emit: onPeak)
        return ReferenceFingerprint(
            landmarks: result, frames: spectrogram.framesProduced, signatures: signatures,
            levels: levels.words())
    }
}
