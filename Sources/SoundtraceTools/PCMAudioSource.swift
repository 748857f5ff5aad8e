import Glibc
import SoundtraceCore

/// A simulated microphone that plays a recording already in memory: the first-class stand-in for
/// a capture device on machines without one, and in tests. Delivers `chunkFrames` per read,
/// as fast as asked (not paced in real time), then reports a stall (`.timeout`) at the end.
final class PCMAudioSource: AudioSource {
    let device: String
    private let samples: [Int16]
    private let rate: Int
    private let chunkFrames: Int
    private var position = 0
    private var isOpen = false
    /// Frames to skip at these positions, to simulate overruns: position → lost frames.
    private let gaps: [Int: Int]
    private let fault: (at: Int, fault: CaptureFault)?
    private(set) var framesSkipped = 0
    private(set) var openCount = 0
    private(set) var closeCount = 0

    init(
        device: String = "simulated", samples: [Int16], rate: Int, chunkFrames: Int = 512,
        gaps: [Int: Int] = [:], fault: (at: Int, fault: CaptureFault)? = nil
    ) {
        self.device = device
        self.samples = samples
        self.rate = rate
        self.chunkFrames = chunkFrames
        self.gaps = gaps
        self.fault = fault
    }

    var isDeviceOpen: Bool { isOpen }

    func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat {
        isOpen = true
        openCount += 1
        position = 0
        return CaptureFormat(sampleRate: rate, deviceChannels: 1, deviceFormat: "S16_LE, 1 ch, \(rate) Hz (simulated)")
    }

    func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent {
        guard isOpen else { throw .other(device: device, detail: "read on a closed device") }
        if let fault, position >= fault.at { throw fault.fault }
        if let lost = gaps[position] {
            position += lost
            framesSkipped += lost
        }
        guard position < samples.count else { return .timeout }
        var end = min(samples.count, position + chunkFrames)
        // A gap inside this chunk: deliver up to it, so the next read starts with the loss.
        if let gap = gaps.keys.filter({ $0 > position && $0 < end }).min() { end = gap }
        let chunk = Array(samples[position..<end])
        let frame = position
        position = end
        return .audio(samples: chunk, frame: frame)
    }

    func wake() {}

    func close() {
        if isOpen { closeCount += 1 }
        isOpen = false
    }
}
