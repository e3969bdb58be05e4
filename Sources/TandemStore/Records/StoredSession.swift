/// A session as stored: only a hash of its secret token ever reaches the disk.
public struct StoredSession: Sendable, Hashable {
    public var id: String
    public var tokenHash: [UInt8]
    public var name: String
    public var color: String
    public var created: Double
    public var lastSeen: Double
    /// The user it belongs to; nil for a guest's session.
    public var userID: String?

    public init(id: String, tokenHash: [UInt8], name: String, color: String, created: Double, lastSeen: Double,
                userID: String? = nil) {
        self.id = id
        self.tokenHash = tokenHash
        self.name = name
        self.color = color
        self.created = created
        self.lastSeen = lastSeen
        self.userID = userID
    }
}
