import Foundation
import Logging
import Synchronization
import TandemCore
import TandemStore

/// Memory and the store, for every document: how a document is built from what is stored
/// (at start-up, after a refused write, when another node created it), what of its undo
/// state is stored besides its changes (the pending journal), snapshots, the log's trim and
/// archive, and what happens when the store fails.
///
/// It promises: a document in memory is always one the store can rebuild (what the store
/// refused is taken back by reloading); the pending journal written for a document lands in
/// the order its buffer grew; while a document's writes fail it refuses changes and
/// `/healthz` says so, until a probe commits and it is reloaded as stored.
final class DocumentPersistence: Sendable {
    let store: any DocumentStore
    let configuration: ServerConfiguration
    let handles: DocumentHandles
    let events: DocumentEvents
    let logger: Logger
    let delivery: @Sendable () -> Delivery
    /// `Replication.writesJournalAlone`: whether a trim of memory is journaled, and pending
    /// undo events may go into a shutdown snapshot.
    let writesJournalAlone: Bool
    /// `Replication.storedChangesAreOwn`: whether a loaded document's last change counts as
    /// this node's (its autosave is then this node's to do).
    let storedChangesAreOwn: Bool
    /// Documents whose last write failed and have not recovered (`/healthz` is failing meanwhile).
    let failingWrites = SharedCount()
    /// Bytes each document's archive holds in the store, as this process knows them: read
    /// at start, then counted as it archives and trims (`DocumentPersistence+Archive`).
    let archiveSizes = SharedValue<[String: Int]>([:])
    /// Archive writes not yet stored: `GET …/edits` waits for them before answering `410`.
    let archivesInFlight = ArchivesInFlight()
    /// Told when the store refused a write because this node no longer owns the document.
    let leaseLost: @Sendable (String) -> Void

    init(store: any DocumentStore, configuration: ServerConfiguration, handles: DocumentHandles, events: DocumentEvents,
         logger: Logger, delivery: @escaping @Sendable () -> Delivery, writesJournalAlone: Bool, storedChangesAreOwn: Bool,
         leaseLost: @escaping @Sendable (String) -> Void = { _ in }) {
        self.leaseLost = leaseLost
        self.store = store
        self.configuration = configuration
        self.handles = handles
        self.events = events
        self.logger = logger
        self.delivery = delivery
        self.writesJournalAlone = writesJournalAlone
        self.storedChangesAreOwn = storedChangesAreOwn
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// The core's configuration for a document with this many levels of undo.
    func documentConfiguration(levelsOfUndo: Int) -> Document.Configuration {
        var c = Document.Configuration()
        c.typingPause = configuration.typingPause
        c.levelsOfUndo = levelsOfUndo
        return c
    }

    /// write must carry them again, or writing only the newer ones would lose them.
    func makeState(document: Document, title: String, created: Double, modified: Double, metadata: DocumentMetadata,
                   pending: [DocumentEvent] = []) -> DocumentState {
        let buffer = JournalBuffer()
        buffer.events = pending
        document.journal = { [buffer] event in buffer.events.append(event) }
        var st = DocumentState(document: document, title: title, created: created, modified: modified,
                               committedRevision: document.revision, lastSavedRevision: document.revision,
                               lastSaved: nil, lastSnapshotRevision: document.revision)
        st.journal = buffer
        st.editingDisabled = metadata.editingDisabled
        st.secure = metadata.secure
        st.access = metadata.access
        // As created (or as stored with nothing to save), the text is its own saved state;
        // a loaded document's last version replaces this (`savedText`).
        st.savedRope = document.changeCount == 0 ? document.rope : nil
        st.savedRevision = document.revision
        return st
    }

    /// The text of a document's newest version and its revision, nil when it has none (or the
    /// store fails: the change count then decides, as before versions were compared).
    func savedText(of id: String) -> (Rope, revision: Int)? {
        guard let newest = try? store.versionLedger(document: id).newest,
              let version = try? store.version(document: id, number: newest.number) else { return nil }
        return (Rope(version.text), version.revision)
    }

    /// Start-up: each document is its newest snapshot plus the stored changes after it.
    func restoreDocuments(_ loaded: [LoadedDocument]) throws {
        for l in loaded { try restoreDocument(l) }
        logger.info("restored \(loaded.count) documents")
    }

    /// One stored document opened (at start-up, or in a cluster when another node created it).
    @discardableResult
    func restoreDocument(_ l: LoadedDocument) throws -> DocumentHandle {
        let metadata = DocumentMetadata(decoding: l.document.metadata)
        let (document, pending) = try rebuild(l, metadata: metadata)
        // The row's time moves with its metadata; its changes' times are in the log.
        let lastChange = (try? document.changes(since: max(0, document.revision - 1)))?.last?.time ?? 0
        var st = makeState(document: document, title: l.document.title, created: l.document.created,
                           modified: max(l.document.modified, lastChange), metadata: metadata, pending: pending)
        if let (saved, revision) = savedText(of: l.document.id) { (st.savedRope, st.savedRevision) = (saved, revision) }
        st.lastChangeLocal = storedChangesAreOwn
        let handle = DocumentHandle(id: l.document.id, state: st, events: handles.makeEventChannel())
        handle.executor.sync { $0.lastSnapshotRevision = l.snapshot?.revision ?? 0 }
        handles.install(handle, rules: metadata.access)
        return handle
    }

    /// The document as stored, and the undo-manager events it replayed from the stored
    /// pending journal (the new state's buffer starts with them, see `makeState`).
    func rebuild(_ l: LoadedDocument, metadata: DocumentMetadata) throws -> (Document, pending: [DocumentEvent]) {
        let config = documentConfiguration(levelsOfUndo: metadata.levelsOfUndo)
        let document: Document
        if let snapshot = l.snapshot, !snapshot.payload.isEmpty {
            document = try Document(snapshot: SnapshotCodec.decode(snapshot.payload), configuration: config)
        } else {
            document = Document(text: "", configuration: config)
        }
        for change in l.tail {
            for event in try ChangeCodec.decode(change.payload) { try document.replay(event) }
            guard document.revision == change.revision else {
                throw JournalCodec.DecodeError(description: "document \(l.document.id): stored change \(change.revision) rebuilt revision \(document.revision)")
            }
        }
        // Undo-manager events after the last change (an open group, a renamed action), kept
        // for this very document (not an earlier one that had the same id).
        if let pending = try? store.meta(Self.pendingKey(l.document.id)), let p = Self.decodePending(pending),
           p.after == document.revision, p.created.map({ abs($0 - l.document.created) < 0.001 }) ?? true {
            for event in p.events { try document.replay(event) }
            return (document, p.events)
        }
        return (document, [])
    }

    static func pendingKey(_ id: String) -> String { "journal:" + id }

    /// The write that keeps the undo-manager events not yet carried by a stored change
    /// (grouping, action names, levels, a cleared change count, a departed session), so that
    /// an acknowledged `beginUndoGrouping` or save survives a crash too; the next stored
    /// change carries them from then on. Nil when nothing is pending.
    ///
    /// Call under the document's lock and submit before releasing it: the store then keeps
    /// these writes in the order the buffer grew, and the newest always lands last.
    func pendingJournalWrite(_ st: DocumentState, id: String) -> StoreWrite? {
        guard let buffer = st.journal, !buffer.events.isEmpty else { return nil }
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        w.key("after"); w.int(st.document.revision)
        w.key("created"); w.double(st.created)
        w.key("events"); w.raw(JournalCodec.encode(buffer.events))
        w.endObject()
        return .setMeta(Self.pendingKey(id), w.bytes)
    }

    static func decodePending(_ bytes: [UInt8]) -> (after: Int, created: Double?, events: [DocumentEvent])? {
        guard let v = try? JSONParser.parse(bytes), let after = v["after"]?.intValue, let events = v["events"],
              let list = try? JournalCodec.decode(JSONWriter.encode(events)) else { return nil }
        var created: Double?
        switch v["created"] {
        case .number(let d)?: created = d
        case .integer(let i)?: created = Double(i)
        default: created = nil
        }
        return (after, created, list)
    }

    /// Under the document's lock: the committed text, with who wrote it, as the version after
    /// `newest` (in its place, when an automatic checkpoint takes the place of another), with
    /// the change count cleared when nothing is in flight (a change still waiting for its
    /// commit is not in the version: it stays unsaved), and the unit that stores it all.
    func versionWrites(_ st: inout DocumentState, of handle: DocumentHandle, _ request: SaveRequest,
                       after ledger: VersionLedger) throws(APIError) -> VersionWrite {
        let rope = st.committedRope
        let time = now()
        // The committed revision is never older than the log's start: only committed changes
        // are trimmed.
        let authors = try? st.document.authors(atRevision: st.committedRevision)
        var v = StoredVersion(documentID: handle.id, number: (ledger.newest?.number ?? 0) + 1, revision: st.committedRevision,
                              time: time, text: rope.description, name: request.name, automatic: request.automatic,
                              authorship: authors.map(Authorship.Run.encode))
        let plan = try request.plan(ledger, bytes: v.storedBytes, at: time, budget: configuration.versionBytes)
        v.since = plan.since
        var writes: [StoreWrite] = []
        for number in (plan.replaced.map { [$0] } ?? []) + plan.dropped {
            writes.append(.removeCheckpoint(document: handle.id, number: number))
        }
        writes.append(.addVersion(v))
        let cleared = st.document.revision == v.revision
        if cleared {
            st.document.updateChangeCount(.cleared)
            if let journal = pendingJournalWrite(st, id: handle.id) { writes.append(journal) }
        }
        return VersionWrite(version: v, text: rope, cleared: cleared, plan: plan, writes: writes)
    }

    /// A version is stored: it is the saved text from now on, and every window hears of it
    /// (and of the checkpoint it took the place of).
    func versionStored(_ write: VersionWrite, in handle: DocumentHandle) {
        let v = write.version
        handle.executor.sync { st in
            guard !st.deleted else { return }
            (st.savedRope, st.savedRevision) = (write.text, v.revision)
            st.lastSaved = v.time
            if write.cleared { st.lastSavedRevision = max(st.lastSavedRevision, v.revision) }
            handle.events.send(ServerSentEvents.frame(id: st.committedRevision, event: "saved",
                                                      data: DocumentJSON.saved(v, replaced: write.plan.replaced, dropped: write.plan.dropped)))
        }
    }
}

/// A version about to be stored (`DocumentPersistence.versionWrites`) and what storing it does.
struct VersionWrite: Sendable {
    var version: StoredVersion
    /// Its text, which becomes the saved text once it is stored.
    var text: Rope
    /// Whether the change count is cleared with it (nothing was in flight).
    var cleared: Bool
    /// The checkpoints it removes.
    var plan: SavePlan
    /// The unit that stores it.
    var writes: [StoreWrite]

    /// The ledger once it is stored.
    func applied(to ledger: inout VersionLedger) {
        if let replaced = plan.replaced { ledger.removed(replaced) }
        for number in plan.dropped { ledger.removed(number) }
        ledger.added(VersionLedger.Entry(version))
    }
}
