import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// The test-support launcher that every acceptance suite starts its children with.
@Suite struct ChildProcessTests {
    @Test func aChildInheritsNoDescriptorButItsThreeStandardOnes() throws {
        let folder = try TemporaryFolder("soundtrace-child-process")
        // A pipe held open without O_CLOEXEC, as a suite running alongside may hold one.
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let listing = folder.path + "/fds"
        // ls opens /proc/self/fd itself (descriptor 3): anything else past 2 was inherited.
        let status = try ChildProcess(
            path: "/bin/ls", arguments: ["/proc/self/fd"], environment: [:], stdout: listing
        ).waitForExit()
        #expect(status == 0)
        let inherited = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
            .filter { $0 > 3 }
        #expect(inherited.isEmpty, "the child inherited descriptors \(inherited) (the test's pipe is \(ends))")
    }
}
