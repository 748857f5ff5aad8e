import CALSA
import SoundtraceCore

/// Software parameters: the stream starts with the first read (start threshold of one frame) and
/// `poll` reports the device ready once a whole period is waiting, so each wake-up reads a useful
/// amount; the stop threshold stays at the buffer size, so a full buffer is an overrun we can see.
enum ALSASoftwareParameters {
    static func apply(_ pcm: OpaquePointer, granted: GrantedFormat, device: String) throws(CaptureFault) -> Bool {
        var allocated: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&allocated) == 0, let sw = allocated else {
            throw .other(device: device, detail: "out of memory for software parameters")
        }
        defer { snd_pcm_sw_params_free(sw) }
        var code = snd_pcm_sw_params_current(pcm, sw)
        if code >= 0 { code = snd_pcm_sw_params_set_start_threshold(pcm, sw, 1) }
        if code >= 0 { code = snd_pcm_sw_params_set_avail_min(pcm, sw, snd_pcm_uframes_t(granted.periodFrames)) }
        if code < 0 { throw ALSAFault.capturing(code, device: device) }
        // Optional: plugins and old kernels may refuse; the timeline then uses the read time.
        let timestamps =
            snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE) >= 0
            && snd_pcm_sw_params_set_tstamp_type(pcm, sw, snd_pcm_tstamp_type_t(SND_PCM_TSTAMP_TYPE_MONOTONIC.rawValue)) >= 0
        code = snd_pcm_sw_params(pcm, sw)
        if code < 0 { throw ALSAFault.capturing(code, device: device) }
        return timestamps
    }
}
