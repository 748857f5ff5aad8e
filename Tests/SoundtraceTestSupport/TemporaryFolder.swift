import Foundation

/// A fresh, empty folder under the system's temporary directory, removed with everything in it
/// when the last reference goes. A test holds it for as long as it uses the files, so nothing it
/// wrote is left behind in /tmp after `swift test`, however the test ends.
public final class TemporaryFolder: Sendable {
    public let path: String

    /// Creates `<temporary directory>/<prefix>-XXXXXX`.
    public init(_ prefix: String) throws(TemporaryFolderFailure) {
        var template = Array((NSTemporaryDirectory() + prefix + "-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TemporaryFolderFailure(description: "mkdtemp \(prefix): \(String(cString: strerror(errno)))")
        }
        path = String(cString: created)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

public struct TemporaryFolderFailure: Error, CustomStringConvertible {
    public let description: String
}
