import Glibc
import Testing

@testable import SoundtracePlatform

/// The libgpiod the build picked: the C shim's implementation (chosen from the header at compile
/// time) must belong to the library that was linked, and only libgpiod 2 offers the kernel's debounce.
@Suite struct GPIODLibraryTests {
    @Test func theLinkedLibraryIsTheMajorTheHeaderAnnounced() {
        let version = GPIODLibrary.version
        #expect([1, 2].contains(GPIODLibrary.major))
        #expect(version.hasPrefix("\(GPIODLibrary.major)."), "shim built for libgpiod \(GPIODLibrary.major), library says \(version)")
    }

    @Test func onlyLibgpiod2AsksTheKernelToDebounce() {
        #expect(GPIODLibrary.offersKernelDebounce == (GPIODLibrary.major >= 2))
    }

    /// A build meant for one libgpiod (SOUNDTRACE_EXPECT_LIBGPIOD=1 or 2, set by whoever built it
    /// against a chosen library) must not have picked up the other header from the system.
    @Test(.enabled(if: expected != nil, "SOUNDTRACE_EXPECT_LIBGPIOD is not set"))
    func theBuildUsesTheLibgpiodItWasMeantFor() {
        #expect("\(GPIODLibrary.major)" == Self.expected, "built against libgpiod \(GPIODLibrary.version)")
    }

    private static var expected: String? { getenv("SOUNDTRACE_EXPECT_LIBGPIOD").map { String(cString: $0) } }
}
