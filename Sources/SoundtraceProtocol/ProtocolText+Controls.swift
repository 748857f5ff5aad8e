/// The protocol's one control-character rule, for both directions and both programs.
///
/// No reply line carries a Unicode control character (category Cc: C0, DEL and C1): the daemon
/// sends each as a space (`sanitized`) and the CLI refuses a reply line holding one, because a
/// terminal reads C1's U+009B, like C0's ESC, as the start of an escape sequence.
///
/// A request line is held to the C0 and DEL part of that rule only: those end or corrupt a line,
/// so the daemon closes a connection that sends one and the CLI refuses to send one. C1 controls
/// pass in a request's arguments, and the daemon sanitizes them wherever it echoes one back.
extension ProtocolText {
    /// Unicode's control characters (Cc): C0, DEL and C1. None may appear in a reply line.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        isRequestControl(scalar) || (0x80...0x9F).contains(scalar.value)
    }

    /// C0 controls and DEL: what a request line may not carry.
    public static func isRequestControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}
