/// A successful reply: the `key: value` lines that came before `OK`, in order. Lists are records
/// that each start with the same key.
public struct ProtocolReply: Sendable, Equatable {
    public struct Pair: Sendable, Equatable {
        public let key: String
        public let value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    public let pairs: [Pair]

    public init(pairs: [Pair]) {
        self.pairs = pairs
    }

    /// The first value of `key`, if the reply has one.
    public func value(_ key: String) -> String? { pairs.first { $0.key == key }?.value }

    /// Every value of `key`, in order (e.g. `command:` or `line:` lists).
    public func values(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    /// The reply cut into records, each starting at a `first` key. Pairs before the first record
    /// are dropped: a later protocol version may put a header there, and clients ignore what they
    /// do not know.
    public func records(startingWith first: String) -> [ProtocolReply] {
        var records: [[Pair]] = []
        for pair in pairs {
            if pair.key == first {
                records.append([pair])
            } else if !records.isEmpty {
                records[records.count - 1].append(pair)
            }
        }
        return records.map(ProtocolReply.init)
    }
}
