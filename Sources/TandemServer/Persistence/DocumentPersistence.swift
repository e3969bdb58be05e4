import enum TandemHTTP.Gzip
import Foundation
import Synchronization
import TandemCore
import TandemStore

/// Collects the document's journal events between two stored changes. Each stored change
/// carries the events since the previous one (its own last), so replaying the stored
/// payloads in revision order rebuilds text, log and undo history exactly.
final class JournalBuffer {
    var events: [DocumentEvent] = []

    func drain() -> [DocumentEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}

/// A stored change's payload: its journal events in `JournalBinary`'s form. Changes stored
/// by earlier servers hold them as `JournalCodec`'s JSON (never starting with the binary
/// form's version byte) and still replay.
enum ChangeCodec {
    static func encode(_ events: [DocumentEvent]) -> [UInt8] { JournalBinary.encode(events) }

    static func decode(_ payload: [UInt8]) throws -> [DocumentEvent] {
        JournalBinary.isBinary(payload) ? try JournalBinary.decode(payload) : try JournalCodec.decode(payload)
    }
}

/// Snapshots in the binary form of `DocumentSnapshot.binary()`: gzipped JSON goes value by
/// value, too slow for a busy document's history (see docs/performance.md). Snapshots stored as gzipped or
/// plain JSON by earlier servers still read.
enum SnapshotCodec {
    static func encode(_ s: DocumentSnapshot) -> [UInt8] { s.binary() }

    /// The binary form, or the gzipped (or plain) JSON that snapshots were stored as before.
    static func decode(_ bytes: [UInt8]) throws -> DocumentSnapshot {
        if DocumentSnapshot.isBinary(bytes) { return try DocumentSnapshot(binary: bytes) }
        var json = bytes
        // JSON never starts with gzip's magic number.
        if bytes.starts(with: [0x1F, 0x8B]) {
            guard let inflated = Gzip.decompress(bytes, limit: Int(Int32.max)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the snapshot's gzip data is damaged"))
            }
            json = inflated
        }
        return try JSONDecoder().decode(DocumentSnapshot.self, from: Data(json))
    }
}

extension DocumentService {
    static let snapshotEvery = 1000

    /// A snapshot holds the whole undo history, so taking one costs time proportional to it:
    /// every 1,000 changes, but while a document is busy at most every 10 s unless 50,000
    /// have piled up, which bounds what start-up replays after a crash without a busy
    /// document paying every edit for a snapshot every second (see docs/performance.md).
    /// A graceful shutdown snapshots every document, so a clean restart replays nothing.
    static func snapshotDue(changes: Int, seconds: Double) -> Bool {
        changes >= 50 * snapshotEvery || (changes >= snapshotEvery && seconds >= 10)
    }
    /// Changes kept in memory for `since`/`base` after a trim.
    static let logKept = 10_000

    /// Cuts a log that grew past twice `logKept` back to `logKept`, and one whose text grew past
    /// `budget` bytes back to the newest changes holding half of it (a few changes of megabytes
    /// each weigh more than thousands of keystrokes); never past what is committed: the
    /// committed text is worked out from the changes in flight (DocumentState.committedRope).
    /// In a cluster (`journaled` false) each node trims its memory alone, unjournaled.
    /// Returns the changes that left memory when `archiving` (for `archive`), else none.
    static func trimToKeptTail(_ st: inout DocumentState, journaled: Bool, budget: Int, archiving: Bool) -> [Change] {
        let document = st.document
        var through = document.firstAvailableRevision - 1
        if document.revision - document.firstAvailableRevision > 2 * logKept { through = document.revision - logKept }
        if overBudget(document, budget) {
            // The oldest revision whose later changes fit in half the budget.
            var lo = through, hi = document.revision
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if document.loggedUnits(since: mid) * 2 <= budget / 2 { hi = mid } else { lo = mid + 1 }
            }
            through = lo
        }
        let end = min(through, st.committedRevision)
        guard end >= document.firstAvailableRevision else { return [] }
        let leaving = archiving ? Self.changes(of: document, through: end) : []
        document.trimLog(through: end, journaled: journaled)
        return leaving
    }

    /// The changes still in memory up to `end`, oldest first.
    static func changes(of document: Document, through end: Int) -> [Change] {
        var changes: [Change] = []
        changes.reserveCapacity(max(0, end - document.firstAvailableRevision + 1))
        try? document.forEachChange(since: document.firstAvailableRevision - 1) { c in
            guard c.revision <= end else { return false }
            changes.append(c)
            return true
        }
        return changes
    }

    /// The budget each log gets when all of them together may hold `total` bytes and one
    /// `each`: the largest share (water-filling) under which the logs, each cut to it, fit
    /// in `total`, so that the largest logs are cut first and small ones are left alone;
    /// never under `floor`, 1 MiB, the smallest a single log may be given.
    static func logShare(sizes: [Int], total: Int, each: Int, floor: Int = 1 << 20) -> Int {
        guard sizes.reduce(0, +) > total else { return each }
        let sorted = sizes.sorted(by: >)
        // Smaller logs, whole, and `k` larger ones at the share: the share is what is left
        // of `total` after the smaller ones, split among the larger.
        var smaller = sorted.reduce(0, +)
        for k in 1...sorted.count {
            smaller -= sorted[k - 1]
            let share = (total - smaller) / k
            if k == sorted.count || share >= sorted[k] { return min(each, max(floor, share)) }
        }
        return each
    }

    /// Whether a document's change log holds more changed text than `budget` bytes.
    static func overBudget(_ document: Document, _ budget: Int) -> Bool {
        document.loggedUnits(since: 0) * 2 > budget
    }

    /// A new document's state, its journal wired to a fresh buffer. A rebuilt document's
    /// buffer starts with the `pending` events it replayed: the next stored change or pending
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
        guard let newest = try? store.versions(document: id).last,
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
        st.lastChangeLocal = !replication.shared
        let handle = DocumentHandle(id: l.document.id, state: st, events: makeEventChannel())
        handle.executor.sync { $0.lastSnapshotRevision = l.snapshot?.revision ?? 0 }
        documents.withLock { $0[l.document.id] = handle }
        indexLinks(of: l.document.id, metadata.access)
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

    /// Housekeeping: a snapshot every thousand changes keeps start-up time flat however long
    /// the history, and the stored log behind it is dropped; the log in memory keeps the
    /// last `logKept` changes for stale bases and catching up.
    ///
    /// With `all` (graceful shutdown) pending undo-manager events go into the snapshot too,
    /// and their stored copy is removed in the same unit, so a clean restart replays nothing
    /// and loses nothing. (Not while running: a change appended meanwhile would carry them
    /// a second time.)
    func takeSnapshots(all: Bool = false) {
        // In a cluster the pending events stay stored: other nodes hold them too, and take
        // them from the journal, never from a snapshot.
        let all = all && !replication.shared
        let handles = documents.withLock { Array($0.values) }
        // Each log's budget this tick: the per-document one, or less while all of them
        // together hold more than the server-wide one.
        let budget = Self.logShare(sizes: handles.map { h in h.executor.sync { $0.document.loggedUnits(since: 0) * 2 } },
                                   total: configuration.logTotalBytes, each: configuration.logBudgetBytes)
        let archiving = configuration.archiveBytes > 0
        defer { keepArchivesWithinTotal() }
        for handle in handles {
            enum Taken { case submitted(StoreTicket, Int), toEncode(DocumentSnapshot) }
            var leaving: [Change] = []
            let taken: Taken? = handle.executor.sync { st in
                let changes = st.document.revision - st.lastSnapshotRevision
                let pending = !(st.journal?.events.isEmpty ?? true)
                // A stored snapshot holds the whole log already: one over a smaller share
                // than when it was taken (others grew) is cut back without another.
                if changes == 0, !all, Self.overBudget(st.document, budget) {
                    leaving = Self.trimToKeptTail(&st, journaled: !replication.shared, budget: budget, archiving: archiving)
                    return nil
                }
                // Changes may still be waiting for their commit: a document under steady load
                // always has some, and a snapshot that waited for a quiet moment might not come
                // while the log in memory grows (see docs/performance.md). The snapshot is queued behind those changes, and the
                // store refuses one beyond its stored revision, so it never holds a change the
                // store did not take. Pending events are drained into the snapshot, so that
                // path still waits until everything before them is committed.
                guard !st.savingError, !st.deleted,
                      all ? changes > 0 || pending
                          : Self.snapshotDue(changes: changes, seconds: now() - st.lastSnapshotTime)
                          || (changes > 0 && Self.overBudget(st.document, budget)),
                      all || !pending,
                      !pending || st.committedRevision == st.document.revision
                else { return nil }
                // The snapshot holds the retained log: cut to the kept tail first, it is much
                // smaller (the store's writer writes it while every edit waits on it), and a
                // shutdown snapshot never carries a long history into the next start-up
                // (see docs/performance.md). (`pending` was read before: the trim's own
                // journal event goes with the next change, as the trim after a snapshot's does.)
                leaving = Self.trimToKeptTail(&st, journaled: !replication.shared, budget: budget, archiving: archiving)
                let snap = st.document.snapshot()
                // Encoded outside the lock, as it takes milliseconds: edits go on meanwhile.
                // The store keeps the newest snapshot whatever order they land in, and a
                // snapshot with no pending events has no stored copy of them to clear.
                guard pending else { return .toEncode(snap) }
                _ = st.journal?.drain()
                // Submitted under the lock: clearing the pending events must not overtake a
                // later write of them.
                let ticket = StoreTicket()
                store.submit([
                    .writeSnapshot(StoredSnapshot(documentID: handle.id, revision: snap.revision, payload: SnapshotCodec.encode(snap))),
                    .trimChanges(document: handle.id, through: snap.revision),
                    .setMeta(Self.pendingKey(handle.id), nil),
                ]) { ticket.finish($0) }
                return .submitted(ticket, snap.revision)
            }
            // Submitted before the snapshot that no longer holds them.
            archive(leaving, of: handle.id)
            let ticket: StoreTicket, revision: Int
            switch taken {
            case nil: continue
            case .submitted(let t, let r)?: (ticket, revision) = (t, r)
            case .toEncode(let snap)?:
                ticket = StoreTicket()
                revision = snap.revision
                store.submit([
                    .writeSnapshot(StoredSnapshot(documentID: handle.id, revision: snap.revision, payload: SnapshotCodec.encode(snap))),
                    .trimChanges(document: handle.id, through: snap.revision),
                ]) { ticket.finish($0) }
            }
            if case .failure(let error) = ticket.wait() {
                logger.warning("snapshot of \(handle.id) failed: \(error)")
                continue
            }
            let later = handle.executor.sync { st in
                st.lastSnapshotRevision = max(st.lastSnapshotRevision, revision)
                st.lastSnapshotTime = now()
                // Changes that came while it was encoded and stored.
                return Self.trimToKeptTail(&st, journaled: !replication.shared, budget: budget, archiving: archiving)
            }
            archive(later, of: handle.id)
        }
    }
}

