import TandemCore
import TandemStore

/// Snapshots: a document's newest snapshot plus the stored changes after it is what start-up
/// replays, so a snapshot now and then keeps start-up time flat however long the history.
extension DocumentPersistence {
    static let snapshotEvery = 1000

    /// A snapshot holds the whole undo history, so taking one costs time proportional to it:
    /// every 1,000 changes, but while a document is busy at most every 10 s unless 50,000
    /// have piled up, which bounds what start-up replays after a crash without a busy
    /// document paying every edit for a snapshot every second (see docs/performance.md).
    /// A graceful shutdown snapshots every document, so a clean restart replays nothing.
    static func snapshotDue(changes: Int, seconds: Double) -> Bool {
        changes >= 50 * snapshotEvery || (changes >= snapshotEvery && seconds >= 10)
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
        // Where other nodes write the journal too, the pending events stay stored: they
        // hold them too, and take them from the journal, never from a snapshot.
        let all = all && writesJournalAlone
        let handles = self.handles.all()
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
                    leaving = trimToKeptTail(&st, of: handle.id, budget: budget, archiving: archiving)
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
                leaving = trimToKeptTail(&st, of: handle.id, budget: budget, archiving: archiving)
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
                return trimToKeptTail(&st, of: handle.id, budget: budget, archiving: archiving)
            }
            archive(later, of: handle.id)
        }
    }
}
