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

    public init(id: String, name: String, color: String, created: Double, lastSeen: Double, tokenHash: [UInt8]) {
        self.id = id
        self.name = name
        self.color = color
        self.created = created
        self.lastSeen = lastSeen
        self.tokenHash = tokenHash
    }
}
