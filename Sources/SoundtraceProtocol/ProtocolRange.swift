/// A page of a long list, `START:END` (END exclusive) or `START:` (to the page limit).
public struct ProtocolRange: Sendable, Equatable {
    public let start: Int
    public let end: Int

    /// The most records one reply may carry.
    public static let maxPage = 100

    public static func parse(_ text: String?, command: String) -> Result<ProtocolRange, ProtocolError> {
        guard let text else { return .success(ProtocolRange(start: 0, end: maxPage)) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func bad() -> Result<ProtocolRange, ProtocolError> {
            .failure(
                ProtocolError(
                    .badArguments, command: command,
                    "range \"\(text)\" should be START:END (e.g. 0:20), END above START and at most \(maxPage) records"))
        }
        guard parts.count == 2, let start = Int(parts[0]), start >= 0, start <= 1_000_000 else { return bad() }
        let end: Int
        if parts[1].isEmpty {
            end = start + maxPage
        } else {
            guard let value = Int(parts[1]), value > start, value - start <= maxPage else { return bad() }
            end = value
        }
        return .success(ProtocolRange(start: start, end: end))
    }
}
