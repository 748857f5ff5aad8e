// The daemon's configuration file, as soundtraced reads it (DaemonStartup): refused unless UTF-8,
// then parsed and validated; the same bytes also as a token file's text (TokenStrength).
@testable import SoundtraceCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    do {
        let configuration = try DaemonConfiguration.parse(text, file: "fuzz.conf")
        // What the daemon does next with the values: the cross-key check again, the bind check.
        try configuration.validate(file: "fuzz.conf")
        expect(DaemonConfiguration.isValidBindAddress(configuration.bind), "parse accepted a bind address it refuses")
        expect((1...65535).contains(configuration.port) && (1...64).contains(configuration.maxClients), "a value escaped its range")
    } catch {
        // Every refusal names the file and is one line of the journal.
        expect(error.description.hasPrefix("fuzz.conf") && !error.description.contains("\n"), "a refusal that is not one line naming the file")
    }
    _ = TokenStrength.estimatedBits(text)
    return 0
}
