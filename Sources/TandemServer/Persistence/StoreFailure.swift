import Foundation
import TandemStore

/// What happens when the store fails, and how the server finds out it works again: a failing
/// document refuses changes until a probe commits and it is reloaded as stored; `/healthz`
/// says so from state kept off the event loops.
extension DocumentPersistence {
    /// The store failed: stop taking changes (503), show `savingError`, and keep trying until
    /// the store works again; then the document is rebuilt from what the store really has,
    /// so nothing that was not acknowledged survives in memory.
    func storeFailed(_ handle: DocumentHandle, error: StoreError) {
        if case .leaseLost = error {
            // Another node owns it now and has its commits: memory here is out of date.
            logger.notice("\(handle.id) moved to another node; dropped here")
            leaseLost(handle.id)
            return handles.release(handle)
        }
        let first = handle.executor.sync { st -> Bool in
            defer { st.savingError = true }
            return !st.savingError
        }
        // Readers must not see the refused change: go back to what the store holds now
        // (reads still work on a full disk). If even that fails, the recovery loop retries.
        do {
            try reloadFromStore(handle, keepSavingError: true)
        } catch {
            logger.error("could not reload \(handle.id) from the store: \(error)")
        }
        guard first else { return }
        failingWrites.add(1)
        logger.error("store failed for \(handle.id): \(error); refusing changes until it recovers")
        events.broadcastState(handle)
        Thread.detachNewThread { [self] in recover(handle) }
    }

    private func recover(_ handle: DocumentHandle) {
        defer { failingWrites.subtract(1) }
        while true {
            Thread.sleep(forTimeInterval: 1)
            if handle.executor.sync({ $0.deleted }) { return }
            do {
                try probeStore()
                guard let revision = try reloadFromStore(handle, keepSavingError: false) else { return }
                logger.notice("store recovered; \(handle.id) is back at revision \(revision)")
                events.broadcastState(handle)
                return
            } catch {
                continue
            }
        }
    }

    /// A small write that tells whether the store commits again (and, once it does, makes
    /// `store.health` ok): every write fails on a full disk, since each needs new WAL frames.
    func probeStore() throws(StoreError) {
        try store.setMeta("health", Array(String(now()).utf8))
    }

    /// The store's health as last seen, for `/healthz`, which answers at once from an event
    /// loop: never a read or a write on the way (`DocumentService.storeHealth` asks the
    /// replication first). A call while failing starts a probe, so a recovered disk or
    /// database shows on the next call.
    func storeHealth() -> StoreHealth {
        let health = store.health
        if case .failing = health { probeStoreLater() }
        return health
    }

    /// `probeStore`, submitted: nothing waits for it; its outcome is the store's health.
    func probeStoreLater() {
        store.submit([.setMeta("health", Array(String(now()).utf8))]) { _ in }
    }

    /// Housekeeping, every tick: a cluster node that has not synced for a while reads the
    /// feed (so `/healthz` notices a database gone away), and `probe` (about once a second)
    /// tries a failing store again.
    func keepStoreHealthFresh(probe: Bool) {
        if probe, case .failing = store.health { probeStoreLater() }
    }

    /// Replaces the document in memory with the one the store holds (snapshot plus tail),
    /// keeping long-polls and settings. Returns the revision, nil if the document is gone.
    @discardableResult
    func reloadFromStore(_ handle: DocumentHandle, keepSavingError: Bool) throws -> Int? {
        guard let stored = try store.document(handle.id) else { return nil }
        let snapshot = try store.snapshot(document: handle.id)
        let tail = try store.changes(document: handle.id, after: snapshot?.revision ?? 0)
        let loaded = LoadedDocument(document: stored, revision: tail.last?.revision ?? snapshot?.revision ?? 0,
                                    snapshot: snapshot, tail: tail)
        let metadata = DocumentMetadata(decoding: stored.metadata)
        return try handle.executor.sync { st in
            let (document, pending) = try rebuild(loaded, metadata: metadata)
            var fresh = makeState(document: document, title: st.title, created: st.created, modified: st.modified,
                                  metadata: metadata, pending: pending)
            fresh.pollers = st.pollers
            (fresh.savedRope, fresh.savedRevision) = (st.savedRope, st.savedRevision)
            fresh.lastSnapshotRevision = snapshot?.revision ?? 0
            fresh.savingError = keepSavingError
            st = fresh
            return document.revision
        }
    }

    /// Calls `then` once a unit written for `handle` outside the change path (a PATCH, a save)
    /// is stored, with its outcome worded: a failed unit that carried the document's pending
    /// journal (`journaled`) puts the document back as stored.
    func whenStored(_ ticket: StoreTicket, of handle: DocumentHandle, journaled: Bool, doing what: String,
                    then: @escaping @Sendable (Result<Void, APIError>) -> Void) {
        ticket.whenFinished { [self] result in
            then(stored(result, of: handle, journaled: journaled, doing: what))
        }
    }

    /// A unit's outcome in the store as the API answers it (see `whenStored`).
    func stored(_ result: Result<Void, StoreError>, of handle: DocumentHandle, journaled: Bool,
                doing what: String) -> Result<Void, APIError> {
        switch result {
        case .success:
            return .success(())
        case .failure(.notFound):
            return .failure(.notFound("document '\(handle.id)'"))
        case .failure(let error):
            logger.error("could not \(what) document \(handle.id): \(error)")
            if journaled { storeFailed(handle, error: error) }
            return .failure(.storageFailing)
        }
    }
}
