/// Why capture could not start or go on, or why a session cannot give an answer it can trust.
/// Each description says what failed and what to do.
public enum CaptureFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such capture device; `available` lists the ones that exist.
    case deviceNotFound(device: String, available: [String])
    /// The device exists but this user may not open it.
    case permissionDenied(device: String)
    /// Another program holds the device.
    case busy(device: String)
    /// The device went away during the session (unplugged, or its sound server stopped).
    case disconnected(device: String)
    /// The device cannot deliver anything the engine can use.
    case unsupportedFormat(device: String, offered: String)
    /// The device stopped delivering audio.
    case stalled(device: String, heardMilliseconds: Int)
    /// A gap in the audio longer than a session may bridge.
    case audioGap(device: String, milliseconds: Int)
    /// Opening the device did not return in time (an ALSA plugin or sound server that does not
    /// answer); `milliseconds` since the open began, which may be an earlier session's.
    /// `daemonRetries`: soundtraced's, which opens the device again once that open returned; a
    /// CLI command gives up instead.
    case notAnswering(device: String, milliseconds: Int, daemonRetries: Bool)
    /// Any other error from the audio system, with its own words.
    case other(device: String, detail: String)
    /// The catalog file the session matched against was rewritten in place while it listened
    /// (not a device fault): what was read from it may be another file's bytes.
    case catalogRewritten(path: String)
    /// The catalog's content check, which a match waits for, did not pass (its bytes do not match
    /// its hash, or the file could not be read): `reason` says which and what to do.
    case catalogCheckFailed(reason: String)

    /// A short machine-readable name, for the protocol and JSON.
    public var code: String {
        switch self {
        case .deviceNotFound: return "deviceNotFound"
        case .permissionDenied: return "permissionDenied"
        case .busy: return "deviceBusy"
        case .disconnected: return "deviceDisconnected"
        case .unsupportedFormat: return "unsupportedFormat"
        case .stalled: return "deviceStalled"
        case .audioGap: return "audioGap"
        case .notAnswering: return "deviceNotAnswering"
        case .other: return "captureError"
        case .catalogRewritten: return "catalogChanged"
        case .catalogCheckFailed: return "catalogCheckFailed"
        }
    }

    public var description: String {
        switch self {
        case let .deviceNotFound(device, available):
            let list =
                available.isEmpty
                ? "no capture devices were found at all (is a microphone plugged in?)"
                : "capture devices here: \(available.joined(separator: ", "))"
            return "capture device '\(device)' does not exist; \(list); set the device with --device (e.g. 'default' or 'plughw:1,0')"
        case let .permissionDenied(device):
            return
                "not allowed to open capture device '\(device)'; add this user to the 'audio' group (or install udev/ rules) and log in again; as a systemd service, the unit needs DeviceAllow=char-alsa rw"
        case let .busy(device):
            return "capture device '\(device)' is in use by another program; close it (or stop its sound server) and listen again"
        case let .disconnected(device):
            return
                "capture device '\(device)' went away during listening (unplugged, or its sound server stopped); reconnect it and listen again"
        case let .unsupportedFormat(device, offered):
            return
                "capture device '\(device)' offers no usable audio format (it offers \(offered)); use a 'plughw:' or 'default' device, which converts"
        case let .stalled(device, heard):
            return "capture device '\(device)' stopped delivering audio after \(heard) ms; check the device and listen again"
        case let .audioGap(device, milliseconds):
            return
                "capture device '\(device)' lost \(milliseconds) ms of audio (the system was too busy to read it in time, or was suspended); listen again"
        case let .notAnswering(device, milliseconds, daemonRetries):
            let next =
                daemonRetries
                ? "soundtraced tries it again once that open returns (`systemctl restart soundtraced` ends the wait)"
                : "then try again"
            return
                "capture device '\(device)' has not finished opening after \(milliseconds / 1000).\(milliseconds % 1000 / 100) s (its ALSA plugin or sound server does not answer); check that the sound server runs, or use a 'plughw:' device; \(next)"
        case let .other(device, detail):
            return "capture device '\(device)' failed: \(detail); check the device and listen again"
        case let .catalogRewritten(path):
            return
                "catalog \(path) was rewritten in place during the session, so its answer cannot be trusted; replace catalog files rather than rewriting them (`soundtrace catalog build --out \(path)` or `install -m 0644 FILE \(path)`; soundtraced then needs `systemctl reload soundtraced`) and listen again"
        case let .catalogCheckFailed(reason):
            return
                "\(reason); the session names nothing from a catalog that failed its check; listen again once the file is replaced (soundtraced then needs `systemctl reload soundtraced`)"
        }
    }
}
