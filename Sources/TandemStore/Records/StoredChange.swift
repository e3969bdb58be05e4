/// One revision of a document's change log; the payload is the server's encoding of the change.
///
/// Revisions of a document are gap-free and strictly increasing from 1: the store refuses
/// (`StoreError.conflict`) a change whose revision is not exactly one past the last stored one.
public struct StoredChange: Sendable, Hashable {
    public var documentID: String
    public var revision: Int
    public var payload: [UInt8]

    public init(documentID: String, revision: Int, payload: [UInt8]) {
        self.documentID = documentID
        self.revision = revision
        self.payload = payload
    }
}
