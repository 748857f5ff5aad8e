/// The progress line of `catalog build`: references and seconds of audio done, and once enough is
/// done to judge the pace, the time left. Pure: the command passes the elapsed time in.
struct CatalogBuildProgress {
    let references: Int
    /// Seconds of audio of all references, from their WAV headers (0 for a file that cannot be
    /// read: its error comes when its turn does).
    let totalSeconds: Double
    private(set) var referencesDone = 0
    private(set) var secondsDone = 0.0
    private(set) var reused = 0
    /// Seconds of audio analysed, not reused: the pace is theirs (reusing takes next to no time).
    private(set) var secondsAnalysed = 0.0

    /// The pace is judged after this share of the audio and this much time: the first
    /// references include starting threads and reading files cold.
    static let estimateAfterShare = 0.05
    static let estimateAfterSeconds = 2.0

    init(references: Int, totalSeconds: Double) {
        self.references = references
        self.totalSeconds = totalSeconds
    }

    mutating func finished(seconds: Double, reused: Bool) {
        referencesDone += 1
        secondsDone += seconds
        if reused { self.reused += 1 } else { secondsAnalysed += seconds }
    }

    /// E.g. "[3/7] references, 312/745 s of audio, 2 reused, about 1 min 10 s left".
    func line(elapsedSeconds: Double) -> String {
        var text = "[\(referencesDone)/\(references)] references, \(Int(secondsDone.rounded()))/\(Int(totalSeconds.rounded())) s of audio"
        if reused > 0 { text += ", \(reused) reused" }
        if let left = secondsLeft(elapsedSeconds: elapsedSeconds) { text += ", about \(Self.duration(left)) left" }
        return text
    }

    /// Time left at the pace of the analysis so far, once it can be judged; nil before that. The
    /// rest is assumed to need analysing: an estimate errs on the long side.
    func secondsLeft(elapsedSeconds: Double) -> Double? {
        guard totalSeconds > 0, secondsAnalysed > 0, elapsedSeconds >= Self.estimateAfterSeconds,
            secondsAnalysed >= totalSeconds * Self.estimateAfterShare
        else { return nil }
        return max(0, totalSeconds - secondsDone) * elapsedSeconds / secondsAnalysed
    }

    /// Whole seconds under a minute, minutes and seconds under an hour, then hours and minutes.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }
}
