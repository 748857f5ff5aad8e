/// Turns a whole reference recording (at the engine's rate) into its landmarks, as the catalog
/// builder indexes them.
public enum ReferenceFingerprinter {
    public enum Failure: Error, Equatable {
        case wrongSampleRate(Int)
        case fftUnavailable
    }

    /// Landmarks in the order they are found, and the number of frames analysed.
    public static func landmarks(of audio: PCMAudio, parameters: EngineParameters) throws(Failure) -> (landmarks: [Landmark], frames: Int) {
        guard audio.sampleRate == parameters.sampleRate else { throw .wrongSampleRate(audio.sampleRate) }
        guard let spectrogram = Spectrogram(parameters: parameters) else { throw .fftUnavailable }
        let picker = PeakPicker(parameters: parameters, peaksPerBlock: parameters.referencePeaksPerBlock)
        let pairer = PeakPairer(minFrames: parameters.minPairFrames, maxFrames: parameters.maxPairFrames,
                                maxBins: parameters.maxPairBins, fanOut: parameters.referenceFanOut)
        var result: [Landmark] = []
        let onPeak: (Peak) -> Void = { peak in
            pairer.push(peak) { anchor, target in
                guard let hash = LandmarkHash.make(anchorBinQ4: anchor.binQ4, targetBinQ4: target.binQ4,
                                                   deltaTimeQ4: target.timeQ4 - anchor.timeQ4) else { return }
                result.append(Landmark(hash: hash, frame: max(0, roundedDivide(anchor.timeQ4, 16))))
            }
        }
        spectrogram.push(audio.samples) { frame, row in picker.push(frame: frame, logPower: row, emit: onPeak) }
        picker.finish(emit: onPeak)
        return (result, spectrogram.framesProduced)
    }
}
