/// The release of the soundtrace and soundtraced binaries (one source for both and the package).
public enum SoundtraceVersion {
    public static let current = "0.2.0"
}
