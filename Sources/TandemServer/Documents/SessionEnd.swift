import TandemCore
import TandemStore

extension ServerContext {
    /// A session's end as the store keeps it, in one unit: the removal of its undo groups
    /// (removeAllActions(withTarget:)) in every document, its persistent pasteboards without
    /// an owner, and the session's row. Its selections and non-persistent pasteboards go too
    /// (they are never stored). Without one unit, a restart could bring back the groups of
    /// a session whose end was acknowledged, or revoke a token whose end was refused.
    ///
    /// The caller has already taken the session out of the registry. With `rollBack` (the
    /// end was asked for, and a refusal is answered 503) a refused unit changes nothing: the
    /// documents go back to what the store holds (`storeFailed`), the session's selections
    /// are put back and the pasteboards stay;
    /// a document already refusing changes refuses this too, before anything changes.
    /// Without it (the session expired) memory keeps the end, and the store learns it with
    /// the documents' next changes or, after a restart, when the session expires again.
    func storeSessionEnd(_ session: String, rollBack: Bool) throws(StoreError) {
        // Locks: the pasteboards' writer lock, then the documents' (by id) as a cut takes
        // them; the documents' are released before the wait, as the store's writer takes them.
        let handles = service.documents.withLock { Array($0.values) }.sorted { $0.id < $1.id }
        let result: Result<Void, StoreError> = pasteboards.exclusively {
            let pasteboardEnd = pasteboards.stageSessionEnd(session)
            var selections: [(Int, Selection)] = []
            let submitted = DocumentLock.withAll(handles.map(\.state)) { held -> Result<(StoreTicket, journaled: [Int], present: [Int]), StoreError> in
                if rollBack, handles.indices.contains(where: { i in held(i) { !$0.deleted && $0.savingError } }) {
                    if case .failing(let error, _) = store.health { return .failure(error) }
                    return .failure(.io("a document's store write failed and is being retried"))
                }
                var writes: [StoreWrite] = []
                var journaled: [Int] = []
                var present: [Int] = []
                for i in handles.indices {
                    held(i) { st in
                        guard !st.deleted else { return }
                        st.document.undoManager.removeAllActions(withTarget: session)
                        let selection = st.document.selection(for: session)
                        if let selection { selections.append((i, selection)) }
                        if selection != nil || handles[i].events.sessions.contains(session) { present.append(i) }
                        st.document.removeSelection(for: session)
                        if let write = service.pendingJournalWrite(st, id: handles[i].id) {
                            writes.append(write)
                            journaled.append(i)
                        }
                    }
                }
                writes += pasteboardEnd.writes + [.deleteSession(session)]
                // Submitted under the documents' locks: each journal write lands in the order
                // that document's buffer grew (see `pendingJournalWrite`).
                let ticket = StoreTicket()
                store.submit(writes) { ticket.finish($0) }
                return .success((ticket, journaled, present))
            }
            let (ticket, journaled, present): (StoreTicket, [Int], [Int])
            switch submitted {
            case .failure(let error): return .failure(error)
            case .success(let s): (ticket, journaled, present) = s
            }
            let stored = ticket.wait()
            if case .failure(let error) = stored, rollBack {
                for i in journaled { service.storeFailed(handles[i], error: error) }
                // Never stored: back where they were, unless the text went back under them.
                for (i, selection) in selections {
                    handles[i].state.withLock { st in try? st.document.setSelection(selection, for: session) }
                }
                return stored
            }
            pasteboards.install(pasteboardEnd, publish: publishPasteboard)
            for i in present { service.broadcastPresence(handles[i]) }
            return stored
        }
        try result.get()
    }
}
