import Glibc

/// Text written to a descriptor (a program's standard output) that notes how the writing ended
/// early, if it did, so that the program can say so and not end as a success: results lost to a
/// full disk must not look written. Nothing more is written once it ended.
public final class DescriptorOutput: Sendable {
    /// Why the output stopped before its end.
    public enum End: Equatable, Sendable {
        /// The reader went away (a closed pipe, as `| head -1` does): nothing is wrong, and nobody
        /// reads the rest.
        case readerGone
        /// The output could not be written (a full disk, an I/O error; the `errno`): what was
        /// meant to be kept is incomplete.
        case failed(Int32)
    }

    private let descriptor: Int32
    private let end = Guarded<End?>(nil)

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// How the output ended early, or nil while all of it was written.
    public var ended: End? { end.withLock { $0 } }

    /// Writes all of `text`, unless the output already ended.
    public func write(_ text: String) {
        guard ended == nil else { return }
        let failure = Self.writeAll(text, to: descriptor)
        guard failure != 0 else { return }
        end.withLock { $0 = $0 ?? (failure == EPIPE ? .readerGone : .failed(failure)) }
    }

    /// All of `text`, across partial writes and signals; 0, or the `errno` that stopped it.
    public static func writeAll(_ text: String, to descriptor: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else { return 0 }
            var done = 0
            while done < bytes.count {
                let written = Glibc.write(descriptor, start + done, bytes.count - done)
                if written < 0, errno == EINTR { continue }
                if written < 0 { return errno }
                if written == 0 { return EIO }
                done += written
            }
            return 0
        }
    }
}
