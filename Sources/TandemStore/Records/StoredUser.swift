/// A person who signs in; sessions (one per tab or client, each its own undo context) belong
/// to a user. `name` is the sign-in name as the server normalizes it, unique among users;
/// `displayName` is what others see. `passwordHash` is the server's encoded hash, nil for a
/// user who signs in another way.
public struct StoredUser: Sendable, Hashable {
    public var id: String
    public var name: String
    public var displayName: String
    public var passwordHash: String?
    public var created: Double

    public init(id: String, name: String, displayName: String, passwordHash: String?, created: Double) {
        self.id = id
        self.name = name
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.created = created
    }
}
