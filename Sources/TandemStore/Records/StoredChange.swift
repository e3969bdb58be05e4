/// One revision of a document's change log; the payload is the server's encoding of the change.
///
/// Revisions of a document are gap-free and strictly increasing from 1: the store refuses
/// (`StoreError.conflict`) a change whose revision is not exactly one past the last stored one.
public struct StoredChange: Sendable, Hashable {
    public var documentID: String
    public var revision: Int
    public var payload: [UInt8]
    /// The document's length (UTF-16 units) after this change, when the writer gives it: a
    /// store may keep the last one for lists (`PostgresStore.directory`). Not part of the
    /// change: never read back, and left out of equality.
    public var length: Int?

    public init(documentID: String, revision: Int, payload: [UInt8], length: Int? = nil) {
        self.documentID = documentID
        self.revision = revision
        self.payload = payload
        self.length = length
    }

    public static func == (a: StoredChange, b: StoredChange) -> Bool {
        a.documentID == b.documentID && a.revision == b.revision && a.payload == b.payload
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(documentID)
        hasher.combine(revision)
        hasher.combine(payload)
    }
}
