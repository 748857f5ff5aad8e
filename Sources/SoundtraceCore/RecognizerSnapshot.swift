/// What the matcher can say about the audio heard so far, in terms the session engine needs.
public struct RecognizerSnapshot: Sendable, Equatable {
    /// True when the matcher's own decision rule calls this a match.
    public let isMatch: Bool
    /// The best candidate reference, if any, with what a person needs to know about it.
    public let reference: ReferenceSummary?
    /// Where in the reference the heard audio starts, in milliseconds (may be negative).
    public let offsetMilliseconds: Int
    /// Aligned landmark hits of the best candidate, and of the best other reference.
    public let score: Int
    public let runnerUpScore: Int
    /// Spectral peaks found so far: zero means silence or a microphone too quiet to use.
    public let peaks: Int
    /// Audio analysed so far, in milliseconds.
    public let heardMilliseconds: Int
    /// A match whose alignment the recognizer's whole-mix checks (frame signatures and band-level
    /// containment) confirmed at two samples in a row, half a second of audio apart, at the same
    /// reference and offset: stable and certain enough to stop on even when its landmark score is
    /// below the early-decision rule's.
    public let confirmedTwice: Bool
    /// A match that only the whole listening window may decide: heard so deep in noise that more
    /// audio can still show it to be another recording that shares a part with this one.
    public let waitsForWindow: Bool
    /// A match from a catalog whose content check (its SHA-256, which soundtraced hashes in the
    /// background after loading) is still under way: not named until the check has passed, while
    /// listening goes on. Waiting out a long check instead would leave the device unread, and the
    /// overrun would fail the session as an audio gap.
    public let awaitsCatalogCheck: Bool
    /// Why no answer from this session can be trusted (the catalog changed under the recognizer):
    /// the session fails with it, whatever the rest says.
    public let fault: CaptureFault?

    public init(
        isMatch: Bool, reference: ReferenceSummary?, offsetMilliseconds: Int, score: Int, runnerUpScore: Int,
        peaks: Int, heardMilliseconds: Int, confirmedTwice: Bool = false, waitsForWindow: Bool = false,
        awaitsCatalogCheck: Bool = false, fault: CaptureFault? = nil
    ) {
        self.fault = fault
        self.awaitsCatalogCheck = awaitsCatalogCheck
        self.confirmedTwice = confirmedTwice
        self.waitsForWindow = waitsForWindow
        self.isMatch = isMatch
        self.reference = reference
        self.offsetMilliseconds = offsetMilliseconds
        self.score = score
        self.runnerUpScore = runnerUpScore
        self.peaks = peaks
        self.heardMilliseconds = heardMilliseconds
    }
}

/// The catalog metadata of a reference, as shown with a result.
public struct ReferenceSummary: Sendable, Equatable {
    public let id: String
    public let title: String
    public let creator: String
    public let license: String
    public let sourceFile: String

    public init(id: String, title: String, creator: String, license: String, sourceFile: String) {
        self.id = id
        self.title = title
        self.creator = creator
        self.license = license
        self.sourceFile = sourceFile
    }
}

/// An incremental matcher as the session engine sees it: contiguous audio in, snapshots out.
/// Implementations live outside Core (the fingerprint engine); tests use scripted ones.
public protocol Recognizer: AnyObject {
    /// Sample rate the recognizer expects.
    var sampleRate: Int { get }
    /// Adds samples that start at `frame` (in samples since the session began). A `frame` beyond
    /// the end of the previous buffer is a gap: the recognizer keeps offsets right across it.
    func push(_ samples: [Int16], atFrame frame: Int)
    /// The verdict on everything so far; for the final verdict the recognizer may flush look-ahead.
    func snapshot(final: Bool) -> RecognizerSnapshot
}
