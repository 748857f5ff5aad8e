import CALSA
import Glibc

/// The capture devices ALSA knows by name, for "device not found" answers and for a person
/// choosing a device.
public enum ALSADeviceList {
    /// Names of PCMs that can capture (ALSA's name hints, minus those marked output-only and the
    /// silent `null` device), without duplicates, at most `limit`: `default` and card-bound names
    /// such as `sysdefault:CARD=Mic` or `plughw:CARD=Mic,DEV=0` first, then the others, each group
    /// in ALSA's order. Opens no device.
    public static func captureDeviceNames(limit: Int = ALSACaptureParameters.standard.deviceListLimit) -> [String] {
        ALSAErrorOutput.silence()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }

        var names: [String] = []
        var cursor = hints
        while let hint = cursor.pointee {
            cursor += 1
            guard let name = take(snd_device_name_get_hint(hint, "NAME")) else { continue }
            // No IOID means both directions; "Output" marks playback-only PCMs (front:, surround51:, …).
            if take(snd_device_name_get_hint(hint, "IOID")) == "Output" { continue }
            names.append(name)
        }
        return ranked(names, limit: limit)
    }

    /// `names` without duplicates and `null`, sound cards first, at most `limit`. Real cards go
    /// first because with libasound2-plugins installed ALSA lists a dozen converter and effect PCMs
    /// (lavrate, speex, upmix, …) ahead of them, which would otherwise fill the list.
    static func ranked(_ names: [String], limit: Int) -> [String] {
        var unique: [String] = []
        // `null` captures endless silence: offering it as a microphone would only mislead.
        for name in names where name != "null" && !unique.contains(name) {
            unique.append(name)
        }
        let cards = unique.filter(isSoundCard)
        let others = unique.filter { !isSoundCard($0) }
        return Array((cards + others).prefix(max(0, limit)))
    }

    /// `default` and names bound to a card (`sysdefault:CARD=Mic`, `plughw:CARD=Mic,DEV=0`, …).
    private static func isSoundCard(_ name: String) -> Bool {
        name == "default" || name.contains("CARD=")
    }

    /// Copies and frees a string ALSA allocated for the caller.
    private static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        guard let text else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
