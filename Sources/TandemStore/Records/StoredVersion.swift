/// A saved version (checkpoint) of a document: its full text at `revision`.
/// `number` is chosen by the caller and unique per document.
public struct StoredVersion: Sendable, Hashable {
    public var documentID: String
    public var number: Int
    public var revision: Int
    public var time: Double
    public var text: String
    public var name: String?

    public init(documentID: String, number: Int, revision: Int, time: Double, text: String, name: String? = nil) {
        self.documentID = documentID
        self.number = number
        self.revision = revision
        self.time = time
        self.text = text
        self.name = name
    }
}
