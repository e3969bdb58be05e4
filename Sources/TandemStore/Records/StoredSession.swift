/// A session as stored, so that it survives restarts (its token only as a hash).
public struct StoredSession: Sendable, Hashable {
    public var id: String
    public var tokenHash: [UInt8]
    public var name: String
    public var color: String
    public var created: Double
    public var lastSeen: Double
    /// The user it belongs to; nil for a guest's session.
    public var userID: String?
    /// Document roles an embedding application's token granted it, as the server encodes them
    /// (a JSON object); nil when none.
    public var grants: String?
    /// When it ends whatever its activity (seconds since 1970): its token's expiry; nil for
    /// a session that ends only when idle or ended.
    public var expires: Double?

    public init(id: String, tokenHash: [UInt8], name: String, color: String, created: Double, lastSeen: Double,
                userID: String? = nil, grants: String? = nil, expires: Double? = nil) {
        self.id = id
        self.tokenHash = tokenHash
        self.name = name
        self.color = color
        self.created = created
        self.lastSeen = lastSeen
        self.userID = userID
        self.grants = grants
        self.expires = expires
    }
}
