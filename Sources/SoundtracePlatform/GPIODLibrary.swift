import CGPIOD

/// The libgpiod this build uses: the major its header had at compile time (which decided the C
/// shim's implementation) and the version of the library linked in.
public enum GPIODLibrary {
    /// 1 (libgpiod 1.6: Debian 12, Raspberry Pi OS bookworm) or 2 (libgpiod 2.x: Debian 13, trixie).
    public static var major: Int { Int(soundtrace_gpiod_major()) }

    /// The linked library's version, e.g. `1.6.3` or `2.3`.
    public static var version: String { String(cString: soundtrace_gpiod_version()) }

    /// True when the button's debounce can be asked of the kernel. libgpiod 1.6 speaks the kernel's
    /// first GPIO interface, which has no debounce, so soundtraced debounces the edges itself there.
    public static var offersKernelDebounce: Bool { soundtrace_gpiod_offers_debounce() }
}
