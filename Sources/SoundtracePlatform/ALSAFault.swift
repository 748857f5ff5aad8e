import CALSA
import Glibc
import SoundtraceCore

/// Turns ALSA's negative errno codes into the `CaptureFault` a person is shown. Kept apart from
/// the I/O so that every row of the table can be tested, including the ones (busy, unplugged)
/// that cannot be produced without a real sound card.
enum ALSAFault {
    /// The fault for a failed `snd_pcm_open` (ALSA's negative code). `available` is asked only when
    /// the device does not exist; `soundNodesDenied` then tells "absent" from "not allowed".
    static func opening(
        _ code: Int32, device: String, available: () -> [String],
        soundNodesDenied: () -> Bool = { SoundNodes.deniedToThisProcess() }
    ) -> CaptureFault {
        switch errnoValue(code) {
        // ENOENT: an undefined PCM name or a missing device node; ENODEV: a card name or number that
        // is not there; ENXIO: a PCM type whose plugin is not installed; EINVAL: a malformed name
        // such as 'plughw:1,x'. To the person all of these mean "no such device" — unless sound
        // devices exist and this process may open none of them, which ALSA also reports as absent.
        case ENOENT, ENODEV, ENXIO, EINVAL:
            if soundNodesDenied() { return .permissionDenied(device: device) }
            return .deviceNotFound(device: device, available: available())
        case EACCES, EPERM:
            return .permissionDenied(device: device)
        // A device held by another program answers EBUSY to a non-blocking open; some drivers say EAGAIN.
        case EBUSY, EAGAIN:
            return .busy(device: device)
        // Sound-server PCMs (pulse, pipewire) answer these when the server is not running.
        case ECONNREFUSED, ECONNRESET, ENOTCONN, EHOSTDOWN, ESHUTDOWN:
            return .other(
                device: device, detail: "its sound server is not running or refused the connection (\(text(code))); start the sound server")
        default:
            return .other(device: device, detail: text(code))
        }
    }

    /// The fault for an error while the device is configured or read that recovery could not clear.
    static func capturing(_ code: Int32, device: String) -> CaptureFault {
        if isDisconnection(code) { return .disconnected(device: device) }
        switch errnoValue(code) {
        case EACCES, EPERM:
            return .permissionDenied(device: device)
        default:
            return .other(device: device, detail: text(code))
        }
    }

    /// Whether `code` means the device is gone: unplugged (ENODEV, and EBADFD once ALSA marks the
    /// stream disconnected), a dead transport (EIO), or a sound server that went away.
    static func isDisconnection(_ code: Int32) -> Bool {
        switch errnoValue(code) {
        case ENODEV, EBADFD, EIO, ENXIO, ENOTCONN, ECONNRESET, ECONNREFUSED, ESHUTDOWN:
            return true
        default:
            return false
        }
    }

    /// The errno value of ALSA's negative `code`. The negation wraps: Int32.min, which no errno
    /// is but a misbehaving plugin could return, then matches no case instead of trapping.
    static func errnoValue(_ code: Int32) -> Int32 {
        0 &- code
    }

    /// ALSA's own words for `code` (it knows both errno values and its own extended codes).
    static func text(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }
}
