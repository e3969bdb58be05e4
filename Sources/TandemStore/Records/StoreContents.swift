/// What start-up needs, read in one go by `DocumentStore.loadAll()`.
public struct StoreContents: Sendable, Hashable {
    public var documents: [LoadedDocument]
    public var sessions: [StoredSession]
    public var pasteboards: [StoredPasteboard]
    public var meta: [String: [UInt8]]

    public init(documents: [LoadedDocument], sessions: [StoredSession], pasteboards: [StoredPasteboard], meta: [String: [UInt8]]) {
        self.documents = documents
        self.sessions = sessions
        self.pasteboards = pasteboards
        self.meta = meta
    }
}

/// A document as start-up sees it: its row, its newest snapshot, and only the changes after
/// that snapshot (all changes when there is none). Apply `tail` to `snapshot` to reach `revision`.
public struct LoadedDocument: Sendable, Hashable {
    public var document: StoredDocument
    /// The last stored revision (0 for a document without changes).
    public var revision: Int
    public var snapshot: StoredSnapshot?
    public var tail: [StoredChange]

    public init(document: StoredDocument, revision: Int, snapshot: StoredSnapshot?, tail: [StoredChange]) {
        self.document = document
        self.revision = revision
        self.snapshot = snapshot
        self.tail = tail
    }
}
