/// A conservative estimate of how many bits of guessing a LAN token is worth. It cannot know how a
/// token was made, so it credits each character with the bits of the character classes the token
/// uses (lowercase, uppercase, digits, other printable ASCII), and only as many characters as are
/// distinct, so that "aaaa…" or a repeated word does not pass for a random string.
public enum TokenStrength {
    /// About what a random 128-bit secret gives, as `head -c 24 /dev/urandom | base64` does (192).
    public static let minimumBits = 128

    public static func estimatedBits(_ token: String) -> Int {
        let scalars = Array(token.unicodeScalars)
        var alphabet = 0
        if scalars.contains(where: { ("a"..."z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("A"..."Z").contains($0) }) { alphabet += 26 }
        if scalars.contains(where: { ("0"..."9").contains($0) }) { alphabet += 10 }
        if scalars.contains(where: {
            $0.isASCII && $0.value > 32 && $0.value < 127
                && !("a"..."z").contains($0) && !("A"..."Z").contains($0) && !("0"..."9").contains($0)
        }) {
            alphabet += 32
        }
        if scalars.contains(where: { !$0.isASCII }) { alphabet += 64 }
        guard alphabet > 1 else { return 0 }
        // Bits per character: floor(log2(alphabet)) in integers, enough for a threshold.
        let perCharacter = Int.bitWidth - 1 - alphabet.leadingZeroBitCount
        let credited = min(scalars.count, Set(scalars).count * 2)
        return credited * perCharacter
    }
}
