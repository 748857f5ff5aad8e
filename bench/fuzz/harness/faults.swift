// The capture and GPIO fault mapping. It parses no text of its own: it maps ALSA's error codes
// and formats names that come from outside (the configured device, the PCM names ALSA lists from
// its configuration files, GPIO chip labels and line names from the kernel) into messages. Input:
// a 4-byte error code, a byte of options, then NUL-separated names.
import Glibc
@testable import SoundtraceCore
@testable import SoundtracePlatform

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 5 else { return 0 }
    let code = Int32(bitPattern: UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24)
    let options = data[4]
    let names = UnsafeBufferPointer(start: data + 5, count: size - 5)
        .split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let device = names[0]
    let others = Array(names.dropFirst())

    // ALSA codes arrive negative; the mapping must take any value (ALSA has its own codes too).
    for value in [code, -code.magnitude.clampedToInt32] {
        let opened = ALSAFault.opening(value, device: device, available: { others }, soundNodesDenied: { options & 1 != 0 })
        let captured = ALSAFault.capturing(value, device: device)
        for fault in [opened, captured] { check(fault) }
        _ = ALSAFault.isDisconnection(value)
    }

    let limit = Int(options >> 1) - 8
    let ranked = ALSADeviceList.ranked(others, limit: limit)
    expect(ranked.count <= max(0, limit) && Set(ranked).count == ranked.count && !ranked.contains("null")
                 && ranked.allSatisfy(others.contains), "ranked devices are not a short list of distinct offered names")
    check(.deviceNotFound(device: device, available: ranked))
    check(.unsupportedFormat(device: device, offered: others.joined(separator: ", ")))

    let chip = GPIOChipSummary(path: "/dev/gpiochip0", label: device, lineCount: Int(options), sampleNames: Array(others.prefix(8)))
    for fault in [GPIOFault.linesNotFound(names: others, chips: [chip]), .permissionDenied(paths: [chip.path], names: others),
                  .busy(name: device, chip: chip.path, offset: UInt32(options), consumer: others.first ?? ""),
                  .system(action: "open", path: device, reason: ALSAFault.text(code))] {
        expect(!fault.description.isEmpty, "an empty GPIO fault message")
    }
    return 0
}

private func check(_ fault: CaptureFault) {
    expect(!fault.description.isEmpty && !fault.code.isEmpty, "an empty capture fault message or code")
}

extension UInt32 {
    fileprivate var clampedToInt32: Int32 { Int32(clamping: self) }
}
