import Dispatch
import Synchronization
import TandemStore

/// A store around a real one whose batches that match `holds` wait behind a gate until the
/// test opens it: a create or a save stuck in the store, on purpose, for as long as a test
/// needs. Everything else goes straight through.
final class GatedStore: DocumentStore, Sendable {
    private struct Held: Sendable {
        var writes: [StoreWrite]
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    let inner: any DocumentStore
    private let holds: @Sendable ([StoreWrite]) -> Bool
    private let gate = Mutex<(closed: Bool, held: [Held])>((false, []))
    /// While set, batches that match `holds` are refused with this error instead of held.
    private let refusal = Mutex<StoreError?>(nil)

    init(_ inner: any DocumentStore, holds: @escaping @Sendable ([StoreWrite]) -> Bool) {
        self.inner = inner
        self.holds = holds
    }

    func close(gate closed: Bool = true) { gate.withLock { $0.closed = closed } }
    func refuse(with error: StoreError?) { refusal.withLock { $0 = error } }
    var heldCount: Int { gate.withLock { $0.held.count } }

    /// Opens the gate and hands what it held to the real store, in order.
    func open() {
        let held = gate.withLock { g -> [Held] in
            g.closed = false
            defer { g.held = [] }
            return g.held
        }
        for h in held { inner.submit(h.writes, completion: h.completion) }
    }

    func submit(_ writes: [StoreWrite], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        // Refused later, on another thread, as a real store's writer would: the caller may
        // hold a document's lock, which the failure path takes again.
        if let error = refusal.withLock({ $0 }), holds(writes) {
            return DispatchQueue.global().async { completion(.failure(error)) }
        }
        let held = gate.withLock { g -> Bool in
            guard g.closed, holds(writes) else { return false }
            g.held.append(Held(writes: writes, completion: completion))
            return true
        }
        if !held { inner.submit(writes, completion: completion) }
    }

    func loadAll() throws(StoreError) -> StoreContents { try inner.loadAll() }
    func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?) throws(StoreError) { try inner.createDocument(document, snapshot: snapshot) }
    func updateDocument(_ document: StoredDocument) throws(StoreError) { try inner.updateDocument(document) }
    func deleteDocument(_ id: String) throws(StoreError) { try inner.deleteDocument(id) }
    func document(_ id: String) throws(StoreError) -> StoredDocument? { try inner.document(id) }
    func lastRevision(document: String) throws(StoreError) -> Int { try inner.lastRevision(document: document) }
    func append(_ changes: [StoredChange], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        inner.append(changes, completion: completion)
    }
    func appendAndWait(_ changes: [StoredChange]) throws(StoreError) { try inner.appendAndWait(changes) }
    func changes(document: String, after: Int, through: Int?) throws(StoreError) -> [StoredChange] {
        try inner.changes(document: document, after: after, through: through)
    }
    func writeSnapshot(_ snapshot: StoredSnapshot) throws(StoreError) { try inner.writeSnapshot(snapshot) }
    func snapshot(document: String) throws(StoreError) -> StoredSnapshot? { try inner.snapshot(document: document) }
    func trimChanges(document: String, through: Int) throws(StoreError) { try inner.trimChanges(document: document, through: through) }
    func archivedRuns(document: String, after: Int, maxBytes: Int) throws(StoreError) -> [ArchivedRun] {
        try inner.archivedRuns(document: document, after: after, maxBytes: maxBytes)
    }
    func archiveSizes() throws(StoreError) -> [String: Int] { try inner.archiveSizes() }
    func users() throws(StoreError) -> [StoredUser] { try inner.users() }
    func user(named name: String) throws(StoreError) -> StoredUser? { try inner.user(named: name) }
    func user(id: String) throws(StoreError) -> StoredUser? { try inner.user(id: id) }
    func recentDocuments(person: String) throws(StoreError) -> [RecentDocument] { try inner.recentDocuments(person: person) }
    func addVersion(_ version: StoredVersion) throws(StoreError) { try inner.addVersion(version) }
    func versions(document: String) throws(StoreError) -> [StoredVersion] { try inner.versions(document: document) }
    func version(document: String, number: Int) throws(StoreError) -> StoredVersion? { try inner.version(document: document, number: number) }
    func versionLedger(document: String) throws(StoreError) -> VersionLedger { try inner.versionLedger(document: document) }
    func versionSummaries(document: String) throws(StoreError) -> [StoredVersion.Summary] { try inner.versionSummaries(document: document) }
    func upsertSession(_ session: StoredSession) throws(StoreError) { try inner.upsertSession(session) }
    func deleteSession(_ id: String) throws(StoreError) { try inner.deleteSession(id) }
    func updateSessionsLastSeen(_ lastSeen: [String: Double]) throws(StoreError) { try inner.updateSessionsLastSeen(lastSeen) }
    func sessions() throws(StoreError) -> [StoredSession] { try inner.sessions() }
    func session(_ id: String) throws(StoreError) -> StoredSession? { try inner.session(id) }
    func upsertPasteboard(_ pasteboard: StoredPasteboard) throws(StoreError) { try inner.upsertPasteboard(pasteboard) }
    func deletePasteboard(_ name: String) throws(StoreError) { try inner.deletePasteboard(name) }
    func pasteboards() throws(StoreError) -> [StoredPasteboard] { try inner.pasteboards() }
    func setMeta(_ key: String, _ value: [UInt8]?) throws(StoreError) { try inner.setMeta(key, value) }
    func meta(_ key: String) throws(StoreError) -> [UInt8]? { try inner.meta(key) }
    var statistics: StoreStatistics { inner.statistics }
    var health: StoreHealth { inner.health }
    func close() {
        open()
        inner.close()
    }
}
