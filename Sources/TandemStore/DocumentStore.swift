/// Durable storage for Tandem: documents, their change logs, snapshots and versions,
/// sessions, pasteboards and a small key/value `meta`. Payloads are opaque bytes: the
/// server encodes operations and snapshots itself.
///
/// Writes are ordered: they run in the order they were submitted, on one writer. An append
/// is acknowledged (its completion called with `.success`) only after the transaction holding
/// it committed with the store's `Durability`; a failure reports an error and stores nothing of
/// the failed operation. Synchronous writes block the calling thread until committed.
/// Reads see everything whose write has returned or completed.
///
/// After a failure such as a full disk, the store stays usable: the next write is tried
/// afresh and succeeds once the disk works again. The document's stored revision stays where
/// it was, so the caller re-appends from `lastRevision(document:) + 1`.
public protocol DocumentStore: Sendable {
    // MARK: Start-up
    /// Every document with its newest snapshot and the changes after it, every session,
    /// pasteboard and meta entry.
    func loadAll() throws(StoreError) -> StoreContents

    // MARK: Documents
    /// Creates a document at revision 0, with an optional starting snapshot (its revision
    /// must be 0). `.conflict` if the id is taken.
    func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?) throws(StoreError)
    /// Replaces title, times and metadata. `.notFound` if absent.
    func updateDocument(_ document: StoredDocument) throws(StoreError)
    /// Removes the document with its changes, snapshot and versions. `.notFound` if absent.
    func deleteDocument(_ id: String) throws(StoreError)
    func document(_ id: String) throws(StoreError) -> StoredDocument?
    /// The last stored revision; `.notFound` if absent.
    func lastRevision(document: String) throws(StoreError) -> Int

    // MARK: Change log
    /// Queues changes (possibly of several documents) for the next group commit. They are
    /// stored all or none; each document's first revision must follow its stored one and
    /// revisions must be consecutive. `completion` runs on one of the store's threads after the
    /// commit (or failure; the writer's, or with durability `full` the syncer's once the WAL is
    /// flushed): keep it short, and do not call blocking writes from it (they fail with `.io`
    /// rather than deadlock); reads and further `append`s are fine.
    func append(_ changes: [StoredChange], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)
    /// Queues `writes` to run in this order as one unit, after everything submitted before:
    /// all are stored or none (a conflict or a missing document fails the whole unit and
    /// nothing else). `completion` runs on the store's thread, as for `append`. Submitting
    /// is cheap and never blocks, so a caller may submit while holding its own lock (the
    /// store then sees its writes in that lock's order) and wait after releasing it.
    func submit(_ writes: [StoreWrite], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void)
    /// `append` that blocks until the commit.
    func appendAndWait(_ changes: [StoredChange]) throws(StoreError)
    /// Stored changes with `after < revision <= through` (nil: to the end), oldest first.
    /// Trimmed revisions are gone.
    func changes(document: String, after: Int, through: Int?) throws(StoreError) -> [StoredChange]
    /// Replaces the document's snapshot unless the stored one is newer. Its revision must
    /// not exceed the stored revision (`.conflict`).
    func writeSnapshot(_ snapshot: StoredSnapshot) throws(StoreError)
    /// The document's stored snapshot, if any.
    func snapshot(document: String) throws(StoreError) -> StoredSnapshot?
    /// Removes the changes with `revision <= through` (usually those a snapshot covers).
    func trimChanges(document: String, through: Int) throws(StoreError)

    // MARK: Archive
    /// Archived runs (`ArchivedRun`, written with `StoreWrite.archive`) holding the changes
    /// after `after` with no gap, oldest first, until their payloads hold `maxBytes` (at
    /// least one run, at most `ArchiveReading.boundsLimit`): empty when no run holds
    /// `after + 1`. A deleted document's runs are gone with it.
    func archivedRuns(document: String, after: Int, maxBytes: Int) throws(StoreError) -> [ArchivedRun]
    /// The bytes of archived payload each document holds (documents with none are absent).
    func archiveSizes() throws(StoreError) -> [String: Int]

    // MARK: Versions
    /// `.conflict` if that number exists for the document, `.notFound` if no document.
    func addVersion(_ version: StoredVersion) throws(StoreError)
    /// All versions of a document, by number.
    func versions(document: String) throws(StoreError) -> [StoredVersion]
    func version(document: String, number: Int) throws(StoreError) -> StoredVersion?
    /// All versions of a document, by number, without their texts and authors.
    func versionSummaries(document: String) throws(StoreError) -> [StoredVersion.Summary]
    /// What each of a document's versions is and holds, without their texts.
    func versionLedger(document: String) throws(StoreError) -> VersionLedger

    // MARK: Sessions, pasteboards, meta
    func upsertSession(_ session: StoredSession) throws(StoreError)
    /// Removes the session; absent is not an error.
    func deleteSession(_ id: String) throws(StoreError)
    /// Moves each named session's `lastSeen` forward (never back) in one transaction;
    /// sessions no longer stored are left absent.
    func updateSessionsLastSeen(_ lastSeen: [String: Double]) throws(StoreError)
    func sessions() throws(StoreError) -> [StoredSession]
    /// The session with this id, nil if none.
    func session(_ id: String) throws(StoreError) -> StoredSession?
    /// Every user, by id.
    func users() throws(StoreError) -> [StoredUser]
    /// The user with this sign-in name, if any.
    func user(named name: String) throws(StoreError) -> StoredUser?
    /// The user with this id, nil if none.
    func user(id: String) throws(StoreError) -> StoredUser?
    /// The documents `person` opened (`StoreWrite.recordOpened`), latest first.
    func recentDocuments(person: String) throws(StoreError) -> [RecentDocument]
    func upsertPasteboard(_ pasteboard: StoredPasteboard) throws(StoreError)
    func deletePasteboard(_ name: String) throws(StoreError)
    func pasteboards() throws(StoreError) -> [StoredPasteboard]
    /// Sets (or with `nil` removes) a meta entry.
    func setMeta(_ key: String, _ value: [UInt8]?) throws(StoreError)
    func meta(_ key: String) throws(StoreError) -> [UInt8]?

    // MARK: Life cycle
    var statistics: StoreStatistics { get }
    /// Failing from a write the store could not commit (not a conflict) until one commits.
    /// The store does not retry by itself: a caller that wants to know when it recovers
    /// writes something (e.g. a meta entry) and looks again.
    var health: StoreHealth { get }
    /// Finishes every queued write, then closes. Later calls fail with `.closed`.
    func close()
}

extension DocumentStore {
    public func createDocument(_ document: StoredDocument) throws(StoreError) {
        try createDocument(document, snapshot: nil)
    }

    public func changes(document: String, after: Int) throws(StoreError) -> [StoredChange] {
        try changes(document: document, after: after, through: nil)
    }

    /// `submit` that blocks until the writes committed or failed. Never call it while
    /// holding a lock that an append completion takes.
    public func perform(_ writes: [StoreWrite]) throws(StoreError) {
        let ticket = StoreTicket()
        submit(writes) { ticket.finish($0) }
        try ticket.wait().get()
    }
}
