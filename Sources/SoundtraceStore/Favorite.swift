/// A favorited catalog reference.
public struct Favorite: Sendable, Equatable {
    /// The catalog reference id.
    public let referenceId: String
    /// When it was favorited, in unix milliseconds (kept when favorited again).
    public let favoritedAt: Int64

    /// A favorite with the given fields.
    public init(referenceId: String, favoritedAt: Int64) {
        self.referenceId = referenceId
        self.favoritedAt = favoritedAt
    }
}
