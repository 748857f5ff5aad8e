import Glibc
import SoundtraceCore
import SoundtracePlatform
import Testing

/// Faults produced by real ALSA on this machine (no sound card): names that do not exist, a
/// device that offers only float samples, and a recording the opening user may not read.
@Suite struct DeviceFaultTests {
    let config = TestALSAConfiguration.shared
    typealias PCM = TestALSAConfiguration.PCM

    /// What ALSA 1.2.8 really returns: ENOENT for an undefined name or card number, ENODEV for an
    /// unknown card name, EINVAL for a malformed one, ENXIO for a PCM whose plugin type it cannot
    /// load. All of them are "not found" to a person.
    @Test(arguments: ["st_no_such_microphone", "hw:7", "plughw:CARD=NoSuchCard,DEV=0", "plughw:1,x", "st_missing_plugin"])
    func unknownDevicesAreNotFoundAndTheAnswerListsRealOnes(name: String) {
        let source = ALSAAudioSource(device: name)
        defer { source.close() }
        do {
            let format = try source.open(preferredRate: 8_000)
            Issue.record("opened a device that does not exist: \(format)")
        } catch {
            guard case let .deviceNotFound(device, available) = error else {
                Issue.record("expected deviceNotFound, got \(error)")
                return
            }
            #expect(device == name)
            #expect(!available.isEmpty)
            #expect(available.contains(PCM.mono), "the test microphones carry hints, so ALSA lists them")
            #expect(available.count <= ALSACaptureParameters.standard.deviceListLimit)
            #expect(error.description.contains(PCM.mono))
        }
    }

    @Test func theDeviceListHasNoDuplicatesAndRespectsItsLimit() {
        _ = config
        let all = ALSADeviceList.captureDeviceNames(limit: 100)
        #expect(Set(all).count == all.count)
        #expect(!all.contains("null"), "the silent null device is no microphone")
        #expect(all.contains(PCM.stereo))
        #expect(ALSADeviceList.captureDeviceNames(limit: 2).count == 2)
    }

    @Test func aFloatOnlyDeviceIsUnsupportedAndTheAnswerSaysWhatItOffers() {
        let source = ALSAAudioSource(device: PCM.floatOnly)
        defer { source.close() }
        do {
            let format = try source.open(preferredRate: 8_000)
            Issue.record("a float-only device was accepted: \(format)")
        } catch {
            guard case let .unsupportedFormat(device, offered) = error else {
                Issue.record("expected unsupportedFormat, got \(error)")
                return
            }
            #expect(device == PCM.floatOnly)
            #expect(offered.contains("FLOAT_LE"))
            #expect(!offered.contains("S16_LE"))
            #expect(offered.contains("channels") && offered.contains("Hz"))
        }
        // The failed open left nothing behind: the same source opens a good device afterwards.
        #expect(source.format == nil)
    }

    /// The recording behind this device has mode 000. Tests run as root, which reads any file, so
    /// the test drops the file-system user id of this one thread to `nobody` (setfsuid is per
    /// thread and clears the thread's DAC-override capabilities); the kernel then refuses the file
    /// with EACCES, which ALSA's `file` plugin passes back from `snd_pcm_open`. Run as another user,
    /// the refusal needs no help.
    @Test func aDeviceTheUserMayNotOpenIsPermissionDenied() throws {
        var info = stat()
        #expect(stat("\(config.directory)/root-only.raw", &info) == 0)
        #expect(info.st_mode & 0o777 == 0, "the fixture must be readable by nobody but root")

        let source = ALSAAudioSource(device: PCM.rootOnly)
        defer { source.close() }
        guard geteuid() == 0 else {
            #expect(throws: CaptureFault.permissionDenied(device: PCM.rootOnly)) { _ = try source.open(preferredRate: 8_000) }
            return
        }
        // Control: as root the device opens, so the refusal below comes from the permission.
        _ = try source.open(preferredRate: 8_000)
        source.close()

        let setfsuid = try #require(ThreadFileSystemUser.setter)
        let previous = setfsuid(65_534)
        defer { _ = setfsuid(UInt32(bitPattern: previous)) }
        #expect(setfsuid(UInt32.max) == 65_534, "the thread's file-system user should now be nobody")
        #expect(throws: CaptureFault.permissionDenied(device: PCM.rootOnly)) { _ = try source.open(preferredRate: 8_000) }
    }
}

/// glibc's `setfsuid`, looked up at run time (its header is not part of Swift's Glibc module).
enum ThreadFileSystemUser {
    typealias Setter = @convention(c) (UInt32) -> Int32
    static let setter: Setter? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "setfsuid") else { return nil }
        return unsafeBitCast(symbol, to: Setter.self)
    }()
}
