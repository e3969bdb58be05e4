/// Who a verified token names, and what it grants until when. Its users are a realm of their
/// own: the stored user's name is `jwt:` and the token's `sub`, which no local or proxy
/// sign-in name can be (those never hold a colon, `UserName`), so a token never signs in to
/// a password account that happens to share its subject.
struct JWTIdentity: Sendable, Equatable {
    /// The token's `sub`: the embedding application's id of the person.
    var subject: String
    /// The token's `name`: what others see, followed at every sign-in.
    var displayName: String
    /// When the session ends unless renewed, in seconds since 1970: the token's `exp` and
    /// the verifier's leeway, so that a token taken is never a session already over.
    var expires: Double
    /// The token's `tandem.documents` claim; empty without one.
    var grants: DocumentGrants

    static let userPrefix = "jwt:"

    /// The stored user's sign-in name for this subject.
    var userName: String { Self.userPrefix + subject }

    /// Whether a user (by its stored name) is one a token signs in.
    static func isTokenUser(_ userName: String?) -> Bool { userName?.hasPrefix(userPrefix) ?? false }
}
