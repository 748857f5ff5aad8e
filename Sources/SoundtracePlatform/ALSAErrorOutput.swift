import CALSA

/// Keeps ALSA from printing its own diagnostics to stderr: a daemon's stderr is its log, and every
/// failure is already reported as a `CaptureFault` built from the code ALSA returns.
enum ALSAErrorOutput {
    /// Installs the no-op handler (once per process; later calls do nothing).
    static func silence() {
        _ = installed
    }

    // A global `let` initializer runs exactly once, thread-safely, before the first ALSA call.
    private static let installed: Bool = soundtrace_alsa_silence_errors() == 0
}
