/// A pasteboard as stored; `payload` is the server's encoding of its items.
/// `owner` is the owning session's id (`nil` for `general`).
public struct StoredPasteboard: Sendable, Hashable {
    public var name: String
    public var owner: String?
    public var persistent: Bool
    public var changeCount: Int
    public var payload: [UInt8]

    public init(name: String, owner: String?, persistent: Bool, changeCount: Int, payload: [UInt8]) {
        self.name = name
        self.owner = owner
        self.persistent = persistent
        self.changeCount = changeCount
        self.payload = payload
    }
}
