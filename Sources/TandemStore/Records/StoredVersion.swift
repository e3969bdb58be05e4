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

extension StoredVersion {
    /// What a list of versions says of each: all but its text and authors.
    public struct Summary: Sendable, Hashable {
        public var number: Int
        public var revision: Int
        public var time: Double
        /// The text's length in UTF-16 units.
        public var length: Int
        public var name: String?
        public var automatic: Bool
        public var since: Double?

        public init(number: Int, revision: Int, time: Double, length: Int, name: String?, automatic: Bool, since: Double?) {
            self.number = number
            self.revision = revision
            self.time = time
            self.length = length
            self.name = name
            self.automatic = automatic
            self.since = since
        }

        public init(_ v: StoredVersion) {
            self.init(number: v.number, revision: v.revision, time: v.time, length: v.text.utf16.count, name: v.name,
                      automatic: v.automatic, since: v.since)
        }
    }

    public var summary: Summary { Summary(self) }

    /// What the version counts against its document's budget for versions: its text, its
    /// authors, and a row's worth besides, so that even empty versions are not free.
    public var storedBytes: Int { VersionLedger.rowBytes + text.utf8.count + (authorship?.count ?? 0) }
}

/// What a save needs to know of a document's versions, oldest first: each one's number,
/// whether it is an automatic checkpoint (and since when it stands), and what it holds.
public struct VersionLedger: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var number: Int
        public var automatic: Bool
        public var since: Double?
        /// `StoredVersion.storedBytes`.
        public var bytes: Int

        public init(number: Int, automatic: Bool = false, since: Double? = nil, bytes: Int = VersionLedger.rowBytes) {
            self.number = number
            self.automatic = automatic
            self.since = since
            self.bytes = bytes
        }

        public init(_ version: StoredVersion) {
            self.init(number: version.number, automatic: version.automatic, since: version.since, bytes: version.storedBytes)
        }
    }

    /// What a version costs beyond its text and authors.
    public static let rowBytes = 256

    /// By number, increasing.
    public private(set) var entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries.sorted { $0.number < $1.number }
    }

    public var newest: Entry? { entries.last }
    /// What the versions hold together.
    public var bytes: Int { entries.reduce(0) { $0 + $1.bytes } }

    /// A version stored after the others.
    public mutating func added(_ entry: Entry) {
        entries.removeAll { $0.number == entry.number }
        if let i = entries.firstIndex(where: { $0.number > entry.number }) { entries.insert(entry, at: i) } else { entries.append(entry) }
    }

    public mutating func removed(_ number: Int) {
        entries.removeAll { $0.number == number }
    }

    /// A version named: kept from then on.
    public mutating func named(_ number: Int) {
        if let i = entries.firstIndex(where: { $0.number == number }) { entries[i].automatic = false }
    }
}
