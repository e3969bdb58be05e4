/// A capability for one document: whoever presents its token acts with its role there.
/// Only the token's hash is kept; the token itself is shown once, when the link is made.
struct ShareLink: Sendable, Equatable {
    var id: String
    var tokenHash: [UInt8]
    var role: Role
    var created: Double
    /// When it stops working; nil for never.
    var expires: Double?
    var revoked = false

    func isValid(at now: Double) -> Bool {
        !revoked && (expires.map { now < $0 } ?? true)
    }

    /// A new link and its token, `<id>.<secret>` (as a session token is made).
    static func make(role: Role, now: Double, expiresIn: Double?) -> (ShareLink, token: String) {
        let id = "l_" + Secrets.base64url(Secrets.randomBytes(9))
        let secret = Secrets.randomBytes(32)
        let link = ShareLink(id: id, tokenHash: Secrets.sha256(secret), role: role, created: now,
                             expires: expiresIn.map { now + $0 })
        return (link, id + "." + Secrets.base64url(secret))
    }

    /// The link id and the hash of the secret a token carries; nil if it is not a link token.
    static func parse(_ token: String) -> (id: String, hash: [UInt8])? {
        let utf8 = token.utf8
        guard token.hasPrefix("l_"), let dot = utf8.firstIndex(of: UInt8(ascii: ".")),
              let secret = SessionRegistry.base64urlDecode(token[utf8.index(after: dot)...]), secret.count == 32
        else { return nil }
        return (String(token[..<dot]), Secrets.sha256(secret))
    }
}
