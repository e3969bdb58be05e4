/// A saved version (checkpoint) of a document: its full text at `revision`.
/// `number` is chosen by the caller and unique per document.
public struct StoredVersion: Sendable, Hashable {
    public var documentID: String
    public var number: Int
    public var revision: Int
    public var time: Double
    public var text: String
    public var name: String?
    /// Written by autosave rather than by someone saving on purpose: a checkpoint that a later
    /// autosave may take the place of (`StoreWrite.removeCheckpoint`); naming it makes it a save that stays.
    public var automatic: Bool
    /// For an automatic checkpoint, when the first of the checkpoints it took the place of was
    /// written: the stretch of time it stands for is `since...time`. Nil for a named save.
    public var since: Double?
    /// Who wrote each part of `text`, as the core encodes its runs; nil when not kept (versions
    /// stored before authorship was).
    public var authorship: [UInt8]?

    public init(documentID: String, number: Int, revision: Int, time: Double, text: String, name: String? = nil,
                automatic: Bool = false, since: Double? = nil, authorship: [UInt8]? = nil) {
        self.documentID = documentID
        self.number = number
        self.revision = revision
        self.time = time
        self.text = text
        self.name = name
        self.automatic = automatic
        self.since = since
        self.authorship = authorship
    }
}

/// What a save needs to know of a document's newest version: the number after which it numbers
/// its own, and whether it may take that version's place (an automatic checkpoint, and since
/// when it stands).
public struct NewestVersion: Sendable, Hashable {
    public var number: Int
    public var automatic: Bool
    public var since: Double?

    public init(number: Int, automatic: Bool = false, since: Double? = nil) {
        self.number = number
        self.automatic = automatic
        self.since = since
    }

    public init(_ version: StoredVersion) {
        self.init(number: version.number, automatic: version.automatic, since: version.since)
    }
}
