import Testing

@testable import SoundtracePlatform

/// The ranking of device names, on the names a Raspberry Pi with a USB microphone and
/// libasound2-plugins installed lists (no sound card exists here to list them for real).
@Suite struct ALSADeviceListTests {
    let hints = [
        "null", "lavrate", "samplerate", "speexrate", "jack", "oss", "pulse", "speex", "upmix", "vdownmix",
        "default", "sysdefault:CARD=Device", "hw:CARD=Device,DEV=0", "plughw:CARD=Device,DEV=0",
        "dsnoop:CARD=Device,DEV=0", "usbstream:CARD=Device", "pulse"
    ]

    @Test func soundCardsComeFirstAndTheListIsBounded() {
        #expect(
            ALSADeviceList.ranked(hints, limit: 7) == [
                "default", "sysdefault:CARD=Device", "hw:CARD=Device,DEV=0", "plughw:CARD=Device,DEV=0",
                "dsnoop:CARD=Device,DEV=0", "usbstream:CARD=Device", "lavrate"
            ])
    }

    @Test func duplicatesAndTheSilentNullDeviceAreLeftOut() {
        let ranked = ALSADeviceList.ranked(hints, limit: 100)
        #expect(!ranked.contains("null"))
        #expect(ranked.filter { $0 == "pulse" }.count == 1)
        #expect(ranked.count == hints.count - 2)
        #expect(ALSADeviceList.ranked(hints, limit: 0).isEmpty)
        #expect(ALSADeviceList.ranked(hints, limit: -1).isEmpty)
    }
}
