import SoundtraceFingerprint
import SoundtraceProtocol

/// The positional argument a daemon command takes, checked before connecting so a typo never
/// costs a round trip or reaches the daemon.
enum DaemonArgument {
    case none
    /// `[START:END]`, a page of a list.
    case optionalRange
    /// A recognition (history event) id: a positive whole number.
    case recognition
    /// A catalog reference id (lower-case letters, digits and hyphens).
    case reference
    /// A session id, `s-N` or just `N`.
    case session

    var synopsis: String {
        switch self {
        case .none: return ""
        case .optionalRange: return " [START:END]"
        case .recognition: return " ID"
        case .reference: return " REFERENCE"
        case .session: return " SESSION"
        }
    }

    /// The arguments to send, or a usage message.
    func validate(_ positional: [String]) -> Result<[String], Arguments.UsageError> {
        func fail(_ text: String) -> Result<[String], Arguments.UsageError> { .failure(.init(description: text)) }
        switch self {
        case .none:
            if let extra = positional.first { return fail("unexpected argument '\(extra)'") }
            return .success([])
        case .optionalRange:
            guard positional.count <= 1 else { return fail("unexpected argument '\(positional[1])'; give at most one range START:END") }
            guard let text = positional.first else { return .success([]) }
            if case let .failure(error) = ProtocolRange.parse(text, command: "") { return fail(error.message) }
            return .success([text])
        case .recognition:
            guard positional.count == 1 else { return fail("name exactly one recognition id (the numbers `soundtrace history` lists)") }
            let text = positional[0]
            guard Self.isPositiveWholeNumber(text) else {
                return fail("a recognition id is a positive whole number such as 12 (see `soundtrace history`), not '\(text)'")
            }
            return .success([text])
        case .reference:
            guard positional.count == 1 else { return fail("name exactly one reference id (the ids `soundtrace catalog` lists)") }
            let text = positional[0]
            guard ReferenceAudio.isValidID(text) else {
                return fail(
                    "a reference id is 3–64 lower-case letters, digits and hyphens such as harbor-lights (see `soundtrace catalog`), not '\(text)'"
                )
            }
            return .success([text])
        case .session:
            guard positional.count == 1 else { return fail("name exactly one session id such as s-4 (see `soundtrace status`)") }
            let text = positional[0]
            let number = text.hasPrefix("s-") ? String(text.dropFirst(2)) : text
            guard Self.isPositiveWholeNumber(number) else {
                return fail("a session id is s-N with N a positive whole number, such as s-4 (see `soundtrace status`), not '\(text)'")
            }
            return .success(["s-" + number])
        }
    }

    /// ASCII digits only (bytes, not Characters: a digit with a combining mark is one Character that
    /// sorts among the digits), no sign or leading zero, and small enough for the daemon's 64-bit ids.
    static func isPositiveWholeNumber(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let first = bytes.first, first != UInt8(ascii: "0"), bytes.count <= 18 else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
