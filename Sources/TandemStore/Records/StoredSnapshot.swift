/// The server's encoding of a document's state at `revision`. The store keeps only the newest
/// one per document: start-up reads it plus the changes after it, never the whole log.
public struct StoredSnapshot: Sendable, Hashable {
    public var documentID: String
    public var revision: Int
    public var payload: [UInt8]

    public init(documentID: String, revision: Int, payload: [UInt8]) {
        self.documentID = documentID
        self.revision = revision
        self.payload = payload
    }
}
