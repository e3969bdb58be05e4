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
    /// The text's length (UTF-16 units) when created, when the writer gives it (as
    /// `StoredChange.length`): kept for lists, never read back, left out of equality.
    public var length: Int?

    public init(id: String, title: String, created: Double, modified: Double, metadata: [UInt8] = [], length: Int? = nil) {
        self.id = id
        self.title = title
        self.created = created
        self.modified = modified
        self.metadata = metadata
        self.length = length
    }

    public static func == (a: StoredDocument, b: StoredDocument) -> Bool {
        a.id == b.id && a.title == b.title && a.created == b.created && a.modified == b.modified && a.metadata == b.metadata
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(title)
        hasher.combine(created)
        hasher.combine(modified)
        hasher.combine(metadata)
    }
}
