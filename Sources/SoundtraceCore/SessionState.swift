/// Where a session is, and for a finished one, what a person needs to know about how it ended.
public enum SessionState: Sendable, Equatable {
    case listening
    case matched(MatchResult)
    case noMatch(NoMatchReason)
    case canceled
    case failed(CaptureFault)

    public var isTerminal: Bool { self != .listening }

    /// The state's name in the protocol and JSON.
    public var name: String {
        switch self {
        case .listening: return "listening"
        case .matched: return "matched"
        case .noMatch: return "noMatch"
        case .canceled: return "canceled"
        case .failed: return "failed"
        }
    }
}

/// A recognition: the reference, where in it the heard audio starts, and how strong the match was.
public struct MatchResult: Sendable, Equatable {
    public let reference: ReferenceSummary
    public let offsetMilliseconds: Int
    public let score: Int
    public let runnerUpScore: Int
    /// Audio heard before the decision.
    public let heardMilliseconds: Int
}

/// Why a full window ended without a match.
public enum NoMatchReason: Sendable, Equatable, CustomStringConvertible {
    /// Nothing rose above the noise floor: silence, or a muted or too distant microphone.
    case silence(heardMilliseconds: Int)
    /// Sound was heard, but it is not in the catalog (or too distorted to recognize).
    case notInCatalog(heardMilliseconds: Int)

    public var description: String {
        switch self {
        case .silence: return "silence or too quiet: nothing was heard above the noise floor; move closer or check the microphone"
        case .notInCatalog: return "heard audio that is not in the catalog"
        }
    }
}

/// One listening session.
public struct RecognitionSession: Sendable, Equatable {
    public let token: SessionToken
    /// The session id, e.g. `s-42`.
    public var id: String { token.description }
    /// Wall-clock start, Unix milliseconds.
    public let startedAt: Int64
    public internal(set) var state: SessionState

    /// A session canceled before its device opened (the CLI's Ctrl-C during a slow open): it heard nothing.
    public static func canceledBeforeListening(token: SessionToken, startedAt: Int64) -> RecognitionSession {
        RecognitionSession(token: token, startedAt: startedAt, state: .canceled)
    }
}
