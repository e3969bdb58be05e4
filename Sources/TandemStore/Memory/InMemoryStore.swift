import Dispatch

/// `DocumentStore` in memory: nothing survives the process. For tests, demos and runs whose
/// documents need not outlive the server. It keeps the contract `SQLiteStore` keeps, so code
/// written against one behaves the same against the other; the contract tests run against
/// both.
///
/// What a caller may rely on:
///
/// - **The same answers.** Every call accepts and refuses what `SQLiteStore` does, with the
///   same `StoreError` (`.notFound`, `.conflict`, and their messages) in the same cases:
///   revisions gap-free and consecutive per document, a snapshot never past the stored
///   revision nor replaced by an older one, trimmed revisions gone, version numbers unique
///   per document, `lastSeen` moving only forward, a NaN time refused where SQLite's NOT NULL
///   columns refuse it. Ids, names and keys are told apart and sorted by their UTF-8 bytes, as
///   SQLite's BINARY collation does, not by `String`'s canonical equivalence.
/// - **Ordered, all-or-nothing writes.** Every write, blocking or not, is a job in one queue,
///   applied in submission order by the store's writer thread. An `append` or a `submit`ted
///   unit is stored whole or not at all; a conflict (or a missing document) fails that job
///   alone, never the others of its batch.
/// - **Completions on the writer thread.** A job's completion runs after its batch is applied,
///   on the writer thread (never on the submitting thread, so a caller may submit while it
///   holds a lock the completion takes), in submission order, with no lock of the store held. Reads
///   and further `append`s or `submit`s are fine from there; a blocking write fails with
///   `.io` instead of deadlocking.
/// - **Reads see what completed.** A read sees every write whose call returned or whose
///   completion ran, and never part of a batch.
/// - **Closing.** `close()` lets the writer apply every queued job and run its completion,
///   then returns; from then on (in fact from the moment it begins, as with `SQLiteStore`)
///   reads and blocking writes throw `.closed`, and a later `append` or `submit` is completed
///   with `.closed`, in order, on a queue of the store's (not on the caller's thread, which is
///   where `SQLiteStore` completes it).
///
/// Threads and locks: one writer thread; one lock over the contents, held by the writer while
/// it applies a batch and by each read while it reads (reads do not run in parallel with each
/// other). Everything public is thread-safe.
///
/// `statistics` counts batches as `transactions` (with `operations`, `appendedChanges` and the
/// time spent applying as `commitNanoseconds`); there is no WAL, so no flushes. `health` is
/// `.ok` unless writes were made to fail with `failWrites(with:)`, which stands in for a full
/// disk so that callers can test how they meet a failing store. `Durability` does not apply.
public final class InMemoryStore: DocumentStore {
    private let writer = MemoryWriter()

    public init() {}

    deinit {
        close()
    }

    public var statistics: StoreStatistics { writer.statistics }

    public var health: StoreHealth { writer.health }

    /// Finishes every queued write, then refuses everything with `.closed`. Idempotent.
    public func close() {
        writer.close()
    }

    /// Until called again with `nil`, every batch of writes fails whole with `error` and
    /// stores nothing, as `SQLiteStore`'s do on a full disk (`.full`), with `health` and
    /// `statistics.failedTransactions` to match: for testing how callers meet a failing store.
    public func failWrites(with error: StoreError?) {
        writer.failWrites(with: error)
    }

    // MARK: Start-up

    public func loadAll() throws(StoreError) -> StoreContents {
        try read { $0.contents }
    }

    // MARK: Documents

    public func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?) throws(StoreError) {
        try writer.perform { state throws(StoreError) in try state.createDocument(document, snapshot: snapshot) }
    }

    public func updateDocument(_ document: StoredDocument) throws(StoreError) {
        try writer.perform { state throws(StoreError) in try state.updateDocument(document) }
    }

    public func deleteDocument(_ id: String) throws(StoreError) {
        try writer.perform { state throws(StoreError) in
            if !state.deleteDocument(id) { throw .noDocument(id) }
        }
    }

    public func document(_ id: String) throws(StoreError) -> StoredDocument? {
        try read { $0.documents[MemoryKey(id)]?.row }
    }

    public func lastRevision(document: String) throws(StoreError) -> Int {
        try read { state throws(StoreError) in try state.document(document).revision }
    }

    // MARK: Change log

    public func append(_ changes: [StoredChange], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        writer.submit(.init(changeCount: changes.count, work: { state throws(StoreError) in try state.append(changes) },
                            completion: completion))
    }

    public func submit(_ writes: [StoreWrite], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let changeCount = writes.reduce(0) { $0 + $1.changeCount }
        writer.submit(.init(changeCount: changeCount, work: { state throws(StoreError) in
            for write in writes { try state.run(write) }
        }, completion: completion))
    }


    public func appendAndWait(_ changes: [StoredChange]) throws(StoreError) {
        try writer.perform(changeCount: changes.count) { state throws(StoreError) in try state.append(changes) }
    }

    public func changes(document: String, after: Int, through: Int?) throws(StoreError) -> [StoredChange] {
        try read { state throws(StoreError) in
            try state.document(document).changes(after: after, through: through ?? Int.max)
        }
    }

    public func writeSnapshot(_ snapshot: StoredSnapshot) throws(StoreError) {
        try writer.perform { state throws(StoreError) in try state.writeSnapshot(snapshot) }
    }

    public func snapshot(document: String) throws(StoreError) -> StoredSnapshot? {
        try read { $0.snapshot(document: document) }
    }

    public func trimChanges(document: String, through: Int) throws(StoreError) {
        try writer.perform { state throws(StoreError) in try state.trimChanges(document: document, through: through) }
    }

    // MARK: Users

    public func users() throws(StoreError) -> [StoredUser] {
        try read { $0.sortedUsers }
    }

    public func user(named name: String) throws(StoreError) -> StoredUser? {
        try read { state in state.sortedUsers.first { $0.name == name } }
    }

    public func user(id: String) throws(StoreError) -> StoredUser? {
        try read { state in state.sortedUsers.first { $0.id == id } }
    }

    public func recentDocuments(person: String) throws(StoreError) -> [RecentDocument] {
        try read { $0.recentDocuments(person: person) }
    }

    // MARK: Archive

    public func archivedRuns(document: String, after: Int, maxBytes: Int) throws(StoreError) -> [ArchivedRun] {
        try read { $0.archivedRuns(document: document, after: after, maxBytes: maxBytes) }
    }

    public func archiveSizes() throws(StoreError) -> [String: Int] {
        try read { $0.archiveSizes }
    }

    // MARK: Versions

    public func addVersion(_ version: StoredVersion) throws(StoreError) {
        try writer.perform { state throws(StoreError) in try state.addVersion(version) }
    }

    public func versions(document: String) throws(StoreError) -> [StoredVersion] {
        try read { $0.versions(document: document) }
    }

    public func version(document: String, number: Int) throws(StoreError) -> StoredVersion? {
        try read { $0.version(document: document, number: number) }
    }

    public func versionSummaries(document: String) throws(StoreError) -> [StoredVersion.Summary] {
        try read { $0.versions(document: document).map(\.summary) }
    }

    public func versionLedger(document: String) throws(StoreError) -> VersionLedger {
        try read { VersionLedger($0.versions(document: document).map(VersionLedger.Entry.init)) }
    }

    // MARK: Sessions, pasteboards, meta

    public func upsertSession(_ session: StoredSession) throws(StoreError) {
        try writer.perform { state throws(StoreError) in try state.upsertSession(session) }
    }

    public func deleteSession(_ id: String) throws(StoreError) {
        try writer.perform { state in state.deleteSession(id) }
    }

    public func updateSessionsLastSeen(_ lastSeen: [String: Double]) throws(StoreError) {
        // As `SQLiteStore`: nothing to do is done at once, even once closed.
        guard !lastSeen.isEmpty else { return }
        try writer.perform { state in state.updateSessionsLastSeen(lastSeen) }
    }

    public func sessions() throws(StoreError) -> [StoredSession] {
        try read { $0.sortedSessions }
    }

    public func session(_ id: String) throws(StoreError) -> StoredSession? {
        try read { $0.sortedSessions.first { $0.id == id } }
    }

    public func upsertPasteboard(_ pasteboard: StoredPasteboard) throws(StoreError) {
        try writer.perform { state in state.upsertPasteboard(pasteboard) }
    }

    public func deletePasteboard(_ name: String) throws(StoreError) {
        try writer.perform { state in state.deletePasteboard(name) }
    }

    public func pasteboards() throws(StoreError) -> [StoredPasteboard] {
        try read { $0.sortedPasteboards }
    }

    public func setMeta(_ key: String, _ value: [UInt8]?) throws(StoreError) {
        try writer.perform { state in state.setMeta(key, value) }
    }

    public func meta(_ key: String) throws(StoreError) -> [UInt8]? {
        try read { $0.meta(key) }
    }

    // MARK: Reading

    /// `body` on the contents under their lock; `.closed` once closing began.
    private func read<T>(_ body: (MemoryState) throws(StoreError) -> T) throws(StoreError) -> T {
        if writer.isClosed { throw .closed }
        return try writer.state.withLock { (state) throws(StoreError) -> T in try body(state) }
    }
}
