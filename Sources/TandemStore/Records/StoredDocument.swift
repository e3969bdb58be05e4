/// A document's row: what the store keeps besides its change log.
///
/// `metadata` is opaque to the store (the server keeps its own JSON there: editing disabled,
/// levels of undo, …). Times are seconds since 1970, as the server measures them.
/// There is no tombstone: `deleteDocument` removes the row and everything hanging off it.
public struct StoredDocument: Sendable, Hashable {
    public var id: String
    public var title: String
    public var created: Double
    public var modified: Double
    public var metadata: [UInt8]

    public init(id: String, title: String, created: Double, modified: Double, metadata: [UInt8] = []) {
        self.id = id
        self.title = title
        self.created = created
        self.modified = modified
        self.metadata = metadata
    }
}
