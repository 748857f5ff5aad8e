import Glibc
import SoundtraceCore
import Testing

@testable import SoundtracePlatform

/// The errno → fault table, row by row. Busy devices and unplugged USB microphones cannot be
/// produced on a machine without a sound card, so their rows are proven here, on the codes a real
/// card's driver returns (EBUSY for a non-blocking open of a held device; ENODEV, then EBADFD, for
/// reads after an unplug).
@Suite struct ALSAFaultMappingTests {
    let device = "plughw:1,0"
    let available = ["default", "plughw:CARD=Mic,DEV=0"]

    @Test(arguments: [ENOENT, ENODEV, ENXIO, EINVAL])
    func missingDevicesAreNotFound(code: Int32) {
        #expect(ALSAFault.opening(-code, device: device) { available } == .deviceNotFound(device: device, available: available))
    }

    @Test(arguments: [EACCES, EPERM])
    func refusedOpensArePermissionDenied(code: Int32) {
        #expect(ALSAFault.opening(-code, device: device) { [] } == .permissionDenied(device: device))
        #expect(ALSAFault.capturing(-code, device: device) == .permissionDenied(device: device))
    }

    @Test(arguments: [EBUSY, EAGAIN])
    func heldDevicesAreBusy(code: Int32) {
        #expect(ALSAFault.opening(-code, device: device) { [] } == .busy(device: device))
    }

    @Test func theDeviceListIsOnlyBuiltWhenTheDeviceIsMissing() {
        var asked = 0
        _ = ALSAFault.opening(-EBUSY, device: device) {
            asked += 1
            return []
        }
        _ = ALSAFault.opening(-EACCES, device: device) {
            asked += 1
            return []
        }
        #expect(asked == 0)
    }

    @Test(arguments: [ECONNREFUSED, ECONNRESET])
    func aMissingSoundServerIsNamedAsSuch(code: Int32) {
        let fault = ALSAFault.opening(-code, device: "pulse") { [] }
        guard case let .other(name, detail) = fault else {
            Issue.record("expected .other")
            return
        }
        #expect(name == "pulse")
        #expect(detail.contains("sound server"))
    }

    @Test func otherOpenErrorsKeepALSAsWords() {
        #expect(ALSAFault.opening(-EMFILE, device: device) { [] } == .other(device: device, detail: "Too many open files"))
    }

    @Test(arguments: [ENODEV, EBADFD, EIO, ECONNRESET, ENOTCONN, ESHUTDOWN])
    func vanishedDevicesAreDisconnected(code: Int32) {
        #expect(ALSAFault.capturing(-code, device: device) == .disconnected(device: device))
    }

    @Test func otherCaptureErrorsKeepALSAsWords() {
        #expect(ALSAFault.capturing(-ENOMEM, device: device) == .other(device: device, detail: "Cannot allocate memory"))
    }

    /// Found by bench/fuzz (harness `faults`): the mapping negated the code, which traps on
    /// Int32.min. No errno is that large, but a misbehaving plugin may return anything: a code
    /// that is no errno is an error in ALSA's words, like any other unknown one.
    @Test(arguments: [Int32.min, Int32.max, 0, 1])
    func codesThatAreNoErrnoAreOtherErrors(code: Int32) {
        let other = CaptureFault.other(device: device, detail: ALSAFault.text(code))
        #expect(ALSAFault.opening(code, device: device, available: { available }, soundNodesDenied: { false }) == other)
        #expect(ALSAFault.capturing(code, device: device) == other)
        #expect(!ALSAFault.isDisconnection(code))
    }

    @Test func everyFaultTellsWhatToDo() {
        let faults = [
            ALSAFault.opening(-EBUSY, device: device) { [] },
            ALSAFault.opening(-EACCES, device: device) { [] },
            ALSAFault.opening(-ENOENT, device: device) { available },
            ALSAFault.capturing(-ENODEV, device: device)
        ]
        for fault in faults {
            #expect(fault.description.contains(device))
            #expect(fault.description.contains(";"), "what failed; what to do")
        }
    }

    @Test func aCardThisProcessMayNotOpenIsPermissionDeniedNotAbsent() {
        // ALSA skips control devices it may not open when it scans cards, so a sandboxed service
        // or a user outside the audio group hears "no such device"; the sound nodes tell the truth.
        #expect(
            ALSAFault.opening(-ENOENT, device: "default", available: { [] }, soundNodesDenied: { true })
                == .permissionDenied(device: "default"))
        #expect(
            ALSAFault.opening(-ENODEV, device: "plughw:CARD=mic,DEV=0", available: { ["null"] }, soundNodesDenied: { false })
                == .deviceNotFound(device: "plughw:CARD=mic,DEV=0", available: ["null"]))
        #expect(CaptureFault.permissionDenied(device: "default").description.contains("DeviceAllow=char-alsa"))
    }

    @Test func soundNodesAreNotDeniedWhereThereAreNone() {
        #expect(!SoundNodes.deniedToThisProcess(directory: "/nonexistent/snd"))
        #expect(!SoundNodes.deniedToThisProcess(directory: "/tmp"))
    }
}
