import CALSA
import SoundtraceCore

/// What a device granted, read back after `snd_pcm_hw_params` rather than assumed from the request.
struct GrantedFormat: Equatable {
    let rate: Int
    let channels: Int
    let periodFrames: Int
    let bufferFrames: Int

    /// The description the engine and the logs see.
    var captureFormat: CaptureFormat {
        CaptureFormat(sampleRate: rate, deviceChannels: channels, deviceFormat: "S16_LE, \(channels) ch, \(rate) Hz")
    }
}

/// Chooses the capture configuration: interleaved S16_LE, mono if the device allows it (else the
/// fewest channels up to the limit, mixed down later), the preferred rate or the nearest one the
/// device grants inside the accepted window, ~64 ms periods and a few periods of buffer.
/// `plughw:` and `default` devices convert format and channels; their rate is the hardware's own
/// nearest the preferred one (the engine resamples), unless the hardware has none in the window.
/// A bare `hw:` device grants only what the hardware does; a sound server's plugin, any rate.
enum ALSAHardwareNegotiation {
    static func configure(
        _ pcm: OpaquePointer, device: String, preferredRate: Int,
        parameters: ALSACaptureParameters
    ) throws(CaptureFault) -> GrantedFormat {
        guard let space = HardwareSpace(), let scratch = HardwareSpace() else {
            throw .other(device: device, detail: "out of memory for hardware parameters")
        }
        let hw = space.pointer
        let code = snd_pcm_hw_params_any(pcm, hw)
        if code < 0 { throw ALSAFault.capturing(code, device: device) }

        func refused(_ reason: String? = nil) -> CaptureFault {
            let offered = offer(of: pcm)
            return .unsupportedFormat(device: device, offered: reason.map { "\(offered) (\($0))" } ?? offered)
        }
        // Applies one constraint to a copy first, so a refused "near" request leaves the space as it was.
        func narrow(_ constrain: (OpaquePointer) -> Int32) -> Bool {
            snd_pcm_hw_params_copy(scratch.pointer, hw)
            guard constrain(scratch.pointer) >= 0 else { return false }
            snd_pcm_hw_params_copy(hw, scratch.pointer)
            return true
        }

        guard narrow({ snd_pcm_hw_params_set_access(pcm, $0, SND_PCM_ACCESS_RW_INTERLEAVED) }),
            narrow({ snd_pcm_hw_params_set_format(pcm, $0, SND_PCM_FORMAT_S16_LE) })
        else { throw refused() }

        // "Near 1" is mono when the device allows it, otherwise its smallest channel count.
        var channels: UInt32 = 1
        guard narrow({ snd_pcm_hw_params_set_channels_near(pcm, $0, &channels) }),
            channels <= UInt32(clamping: parameters.maximumChannels)
        else { throw refused() }

        // Keep only the rates the engine can resample from, then take the one nearest the preference.
        // The hardware's own rates first: a `plug` device (`plughw:`, or `default` without a sound
        // server) would otherwise convert to the preferred rate itself, with whatever converter
        // alsa-lib has — without alsa-plugins that is linear interpolation with no anti-aliasing
        // filter, whose folded-down highs cost a match 12-52 % of its score (docs/AUDIO.md); the
        // engine's own filter converts instead. Only a device whose hardware has no rate in the
        // window is left to the plugin's converter.
        func window(allowingConversion: Bool) -> Bool {
            var lowest = UInt32(clamping: parameters.lowestRate)
            var highest = UInt32(clamping: parameters.highestRate)
            var lowestDirection: Int32 = 0
            var highestDirection: Int32 = 0
            return narrow { space in
                if !allowingConversion, snd_pcm_hw_params_set_rate_resample(pcm, space, 0) < 0 { return -1 }
                return snd_pcm_hw_params_set_rate_minmax(pcm, space, &lowest, &lowestDirection, &highest, &highestDirection)
            }
        }
        guard window(allowingConversion: false) || window(allowingConversion: true) else { throw refused() }
        var rate = UInt32(clamping: min(max(preferredRate, parameters.lowestRate), parameters.highestRate))
        var direction: Int32 = 0
        guard narrow({ snd_pcm_hw_params_set_rate_near(pcm, $0, &rate, &direction) }) else { throw refused() }

        // Timing is a wish, not a requirement: a device that cannot meet it keeps its own choice.
        var periodTime = UInt32(clamping: parameters.periodMicroseconds)
        _ = narrow({ snd_pcm_hw_params_set_period_time_near(pcm, $0, &periodTime, &direction) })
        var periods = UInt32(clamping: parameters.periodsPerBuffer)
        _ = narrow({ snd_pcm_hw_params_set_periods_near(pcm, $0, &periods, &direction) })

        let installed = snd_pcm_hw_params(pcm, hw)
        if installed < 0 {
            if ALSAFault.isDisconnection(installed) { throw .disconnected(device: device) }
            throw refused("it refused the configuration: \(ALSAFault.text(installed))")
        }
        return try readBack(hw, device: device, parameters: parameters, refused: refused)
    }

    /// The configuration actually installed, checked against what the source can use.
    private static func readBack(
        _ hw: OpaquePointer, device: String, parameters: ALSACaptureParameters,
        refused: (String?) -> CaptureFault
    ) throws(CaptureFault) -> GrantedFormat {
        var direction: Int32 = 0
        var rate: UInt32 = 0
        var channels: UInt32 = 0
        var format = SND_PCM_FORMAT_UNKNOWN
        var periodFrames: snd_pcm_uframes_t = 0
        var bufferFrames: snd_pcm_uframes_t = 0
        guard snd_pcm_hw_params_get_rate(hw, &rate, &direction) >= 0,
            snd_pcm_hw_params_get_channels(hw, &channels) >= 0,
            snd_pcm_hw_params_get_format(hw, &format) >= 0,
            snd_pcm_hw_params_get_period_size(hw, &periodFrames, &direction) >= 0,
            snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames) >= 0
        else {
            throw refused("its configuration could not be read back")
        }
        let granted = GrantedFormat(
            rate: Int(rate), channels: Int(channels),
            periodFrames: Int(periodFrames), bufferFrames: Int(bufferFrames))
        guard format == SND_PCM_FORMAT_S16_LE,
            granted.rate >= parameters.lowestRate, granted.rate <= parameters.highestRate,
            granted.channels >= 1, granted.channels <= parameters.maximumChannels,
            granted.periodFrames > 0, granted.bufferFrames >= granted.periodFrames
        else {
            throw refused("it granted \(String(cString: snd_pcm_format_name(format))), \(channels) ch, \(rate) Hz")
        }
        return granted
    }

    /// What the device offers, from its unrestricted parameter space: formats, channels, rates
    /// (e.g. "formats FLOAT_LE, FLOAT_BE; 2 channels; 44100–48000 Hz").
    static func offer(of pcm: OpaquePointer) -> String {
        guard let space = HardwareSpace(), snd_pcm_hw_params_any(pcm, space.pointer) >= 0 else {
            return "nothing it could describe"
        }
        let hw = space.pointer
        var formats: [String] = []
        for raw in 0...SND_PCM_FORMAT_LAST.rawValue {
            let format = snd_pcm_format_t(rawValue: raw)
            if snd_pcm_hw_params_test_format(pcm, hw, format) == 0 {
                formats.append(String(cString: snd_pcm_format_name(format)))
            }
        }
        let shown =
            formats.count > 8
            ? formats.prefix(8).joined(separator: ", ") + " and \(formats.count - 8) more"
            : formats.joined(separator: ", ")
        var parts = ["formats " + (formats.isEmpty ? "none" : shown)]

        var direction: Int32 = 0
        var lowChannels: UInt32 = 0
        var highChannels: UInt32 = 0
        var lowRate: UInt32 = 0
        var highRate: UInt32 = 0
        if snd_pcm_hw_params_get_channels_min(hw, &lowChannels) >= 0,
            snd_pcm_hw_params_get_channels_max(hw, &highChannels) >= 0
        {
            parts.append(span(lowChannels, highChannels) + " channels")
        }
        if snd_pcm_hw_params_get_rate_min(hw, &lowRate, &direction) >= 0,
            snd_pcm_hw_params_get_rate_max(hw, &highRate, &direction) >= 0
        {
            parts.append(span(lowRate, highRate) + " Hz")
        }
        if snd_pcm_hw_params_test_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED) != 0 {
            parts.append("no interleaved read access")
        }
        return parts.joined(separator: "; ")
    }

    private static func span(_ low: UInt32, _ high: UInt32) -> String {
        if low == high { return "\(low)" }
        // Plugins that accept anything report UINT_MAX-like maxima; say so instead of printing them.
        return high >= 1 << 24 ? "\(low) or more" : "\(low)–\(high)"
    }
}

/// A heap-allocated `snd_pcm_hw_params_t`, freed with its owner (the C macro that puts one on the
/// stack does not reach Swift).
private final class HardwareSpace {
    let pointer: OpaquePointer

    init?() {
        var allocated: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&allocated) == 0, let allocated else { return nil }
        pointer = allocated
    }

    deinit {
        snd_pcm_hw_params_free(pointer)
    }
}
