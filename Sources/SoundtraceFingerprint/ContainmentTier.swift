/// The bars of `ContainmentCheck.passes`, from the strictest.
enum ContainmentTier: Equatable {
    /// At most `containmentMaxShortfallQ12` short.
    case nothingMissing
    /// A room's colouring: up to `containmentColouredMaxShortfallQ12` short with the signatures
    /// close and little else heard.
    case coloured
    /// The same colouring heard through noise: the signatures further apart, next to nothing heard
    /// above the recording (`containmentQuietMaxSurplusQ12`).
    case colouredInNoise
}
