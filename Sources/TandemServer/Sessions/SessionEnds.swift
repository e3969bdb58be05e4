import TandemCore
import TandemStore

/// What is left behind when a session ends, leaves a document, or loses access: its undo
/// groups, selections, presence, streams and long-polls, and its row and pasteboards in the
/// store.
///
/// It promises: a session's end is stored as one unit or not at all (`storeSessionEnd`), and
/// nothing the session opened outlives its right to it (`AccessEnds`).
struct SessionEnds: Sendable {
    let handles: DocumentHandles
    let store: any DocumentStore
    let pasteboards: PasteboardRegistry
    let events: DocumentEvents
    let persistence: DocumentPersistence
    let replication: any Replication
    let delivery: @Sendable () -> Delivery

    /// A session's end as the store keeps it, in one unit: the removal of its undo groups
    /// (removeAllActions(withTarget:)) in every document, its persistent pasteboards without
    /// an owner, and the session's row. Its selections and non-persistent pasteboards go too
    /// (they are never stored). Without one unit, a restart could bring back the groups of
    /// a session whose end was acknowledged, or revoke a token whose end was refused.
    ///
    /// The caller has already taken the session out of the registry. With `rollBack` (the
    /// end was asked for, and a refusal is answered 503) a refused unit changes nothing: the
    /// documents go back to what the store holds (`DocumentPersistence.storeFailed`), the
    /// session's selections are put back and the pasteboards stay; a document already
    /// refusing changes refuses this too, before anything changes.
    /// Without it (the session expired) memory keeps the end, and the store learns it with
    /// the documents' next changes or, after a restart, when the session expires again.
    ///
    /// Runs as a pasteboard writer (`PasteboardRegistry.serially`), so what it staged is
    /// still what gets installed; `then` gets the store's outcome, and no thread waits for it.
    /// How the unit takes its place among the documents' changes is the replication's
    /// (`Replication.storeSessionEnd`).
    func storeSessionEnd(_ session: String, rollBack: Bool, then: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        pasteboards.serially { [self] done in
            let finish: @Sendable (Result<Void, StoreError>) -> Void = { [self] result in
                if case .success = result { endAccess(ofSession: session) }
                then(result)
                done()
            }
            let handles = self.handles.all().sorted { $0.id < $1.id }
            let pasteboardEnd = pasteboards.stageSessionEnd(session)
            replication.storeSessionEnd(SessionEnding(session: session, handles: handles, pasteboardEnd: pasteboardEnd,
                                                      rollBack: rollBack, then: finish), ends: self)
        }
    }

    /// A session's end on one node alone with its store: submitted from every document's
    /// executor at once (in id order), so each journal write lands in the order its buffer grew.
    func submitAlone(_ end: SessionEnding) {
        let (session, handles, pasteboardEnd, rollBack, finish) = (end.session, end.handles, end.pasteboardEnd, end.rollBack, end.then)
        let submitted: SubmittedSessionEnd
        switch submitSessionEnd(session, handles: handles, pasteboardEnd: pasteboardEnd, rollBack: rollBack) {
        case .failure(let error): return finish(.failure(error))
        case .success(let s): submitted = s
        }
        // Awaited with the documents' executors left.
        submitted.ticket.whenFinished { [self] stored in
            if case .failure(let error) = stored, rollBack {
                for i in submitted.journaled { persistence.storeFailed(handles[i], error: error) }
                // Never stored: back where they were, unless the text went back under them.
                for (i, selection) in submitted.selections {
                    handles[i].executor.sync { st in try? st.document.setSelection(selection, for: session) }
                }
                return finish(stored)
            }
            pasteboards.install(pasteboardEnd, publish: events.publishPasteboard)
            for i in submitted.present { events.broadcastPresence(handles[i]) }
            finish(stored)
        }
    }

    /// Where documents have owners (`LeasedReplication`), a session that ended on another node
    /// (its row is gone) ends in this node's documents too: its undo groups and selections go,
    /// stored with each document's journal (the ending node stored its row's removal and its
    /// own documents' part).
    func endHere(_ session: String) {
        let handles = self.handles.all().sorted { $0.id < $1.id }
        guard !handles.isEmpty else { return }
        DocumentExecutor.syncAll(handles.map(\.executor)) { held in
            var writes: [StoreWrite] = []
            var journaled: [Int] = []
            for i in handles.indices {
                held(i) { st in
                    guard !st.deleted else { return }
                    st.document.undoManager.removeAllActions(withTarget: session)
                    st.document.removeSelection(for: session)
                    if let write = persistence.pendingJournalWrite(st, id: handles[i].id) {
                        writes.append(write)
                        journaled.append(i)
                    }
                }
            }
            guard !writes.isEmpty else { return }
            store.submit(writes, delivery: delivery()) { [persistence, journaled] result in
                if case .failure(let error) = result { for i in journaled { persistence.storeFailed(handles[i], error: error) } }
            }
        }
    }

    /// Why a session's end is refused while a document refuses changes.
    var storeRefusal: StoreError {
        if case .failing(let error, _) = store.health { return error }
        return .io("a document's store write failed and is being retried")
    }

    /// A document refuses changes: the end is refused too, before anything changes.
    func refusingStore(_ handles: [DocumentHandle]) -> StoreError? {
        handles.contains { $0.executor.sync { !$0.deleted && $0.savingError } } ? storeRefusal : nil
    }

    /// A session's end submitted; indices are into the handles it was given.
    private struct SubmittedSessionEnd: Sendable {
        var ticket: StoreTicket
        /// Documents whose pending journal went into the unit.
        var journaled: [Int]
        /// Documents the session was in (a selection or an event stream): their presence changes.
        var present: [Int]
        /// The selections taken away, to put back if the unit is refused.
        var selections: [(Int, Selection)]
    }

    /// In every document's executor (in id order): the session's groups and selections gone,
    /// submitted as one unit with the pasteboards' end and the session's row.
    private func submitSessionEnd(_ session: String, handles: [DocumentHandle], pasteboardEnd: PasteboardRegistry.SessionEnd,
                                  rollBack: Bool) -> Result<SubmittedSessionEnd, StoreError> {
        DocumentExecutor.syncAll(handles.map(\.executor)) { held -> Result<SubmittedSessionEnd, StoreError> in
            if rollBack, handles.indices.contains(where: { i in held(i) { !$0.deleted && $0.savingError } }) {
                return .failure(storeRefusal)
            }
            var writes: [StoreWrite] = []
            var end = SubmittedSessionEnd(ticket: StoreTicket(), journaled: [], present: [], selections: [])
            for i in handles.indices {
                held(i) { st in
                    guard !st.deleted else { return }
                    st.document.undoManager.removeAllActions(withTarget: session)
                    let selection = st.document.selection(for: session)
                    if let selection { end.selections.append((i, selection)) }
                    if selection != nil || handles[i].events.sessions.contains(session) { end.present.append(i) }
                    st.document.removeSelection(for: session)
                    if let write = persistence.pendingJournalWrite(st, id: handles[i].id) {
                        writes.append(write)
                        end.journaled.append(i)
                    }
                }
            }
            // A guest's list of opened documents goes with it (a user's is the user's).
            writes += pasteboardEnd.writes + [.deleteSession(session), .forgetOpened(person: session)]
            // Submitted under the documents' locks: each journal write lands in the order
            // that document's buffer grew (see `DocumentPersistence.pendingJournalWrite`).
            let ticket = end.ticket
            store.submit(writes, delivery: delivery()) { ticket.finish($0) }
            return .success(end)
        }
    }
}

/// A session's end, staged and waiting to be stored (`SessionEnds.storeSessionEnd`).
struct SessionEnding: Sendable {
    var session: String
    /// Every open document, in id order.
    var handles: [DocumentHandle]
    var pasteboardEnd: PasteboardRegistry.SessionEnd
    var rollBack: Bool
    /// The store's outcome; called once.
    var then: @Sendable (Result<Void, StoreError>) -> Void
}
