import Foundation
import SoundtraceTestSupport

/// Runs `body` with a fresh, empty folder that is removed afterwards, whatever happens.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let folder = try TemporaryFolder("soundtrace-store-tests")
    return try withExtendedLifetime(folder) { try body(folder.path) }
}

/// A failure in test set-up, with a message saying what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The bytes of a file (test helper).
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The names in a folder, sorted.
func directoryListing(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}

/// The size of a file in bytes, or nil when it does not exist.
func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
}
