import Foundation

/// A user of the server: who edits, whose undo context, whose pasteboards.
public struct Session: Sendable, Equatable {
    public var id: String
    public var name: String
    public var color: String
    public var created: Double
    public var lastSeen: Double
    /// SHA-256 of the secret half of the token; the token itself is never kept.
    public var tokenHash: [UInt8]
    /// The user it belongs to (`StoredUser.id`); nil for a guest.
    public var userID: String?
    /// That user's sign-in name (`StoredUser.name`), as the store held it when the session was
    /// made or learned; kept in memory only. A trusted proxy's header is checked against it.
    public var userName: String?
    /// When a session an application's token started ends, in seconds since 1970 (the
    /// token's `exp`, moved by renewal); nil for every other session, which only idles out.
    public var expires: Double?
    /// The document roles that token grants (`DocumentGrants`); empty for other sessions.
    var grants = DocumentGrants()

    public init(id: String, name: String, color: String, created: Double, lastSeen: Double, tokenHash: [UInt8],
                userID: String? = nil, userName: String? = nil) {
        self.id = id
        self.name = name
        self.color = color
        self.created = created
        self.lastSeen = lastSeen
        self.tokenHash = tokenHash
        self.userID = userID
        self.userName = userName
    }
}

extension Session {
    /// The person the session belongs to, as owners, members and pasteboards name people:
    /// its user (`user:<id>`), or for a guest the session itself (a session id never has a
    /// colon).
    var person: String { userID.map { Self.userPrefix + $0 } ?? id }

    static let userPrefix = "user:"

    /// Whether its token's time is up at `now`.
    func hasExpired(at now: Double) -> Bool { expires.map { now >= $0 } ?? false }
}
