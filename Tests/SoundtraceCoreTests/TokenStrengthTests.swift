import Testing

@testable import SoundtraceCore

@Suite struct TokenStrengthTests {
    @Test(arguments: [
        ("q7Vd2LkP9wZx4TnR0sYb8MfHc3GjUe1A", true),  // base64 of 24 random bytes
        ("3f9a0c7e1b4d8a62c5e0f7a9d3b1c8e4", true),  // 16 random bytes in hex
        ("correct-horse-battery", false),  // words
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),  // one letter, however long
        ("abcabcabcabcabcabcabcabcabcabcabcabc", false),  // a short pattern repeated
        ("Tr0ub4dor&3", false)  // short
    ])
    func weakTokensAreToldApartFromRandomOnes(token: String, strong: Bool) {
        #expect((TokenStrength.estimatedBits(token) >= TokenStrength.minimumBits) == strong, "\(TokenStrength.estimatedBits(token)) bits")
    }
}
