import Dispatch
import Logging
import TandemCore
import TandemStore

/// What a change did to the document in its executor.
enum ChangeOutcome<Result: Sendable> {
    /// Nothing changed (a no-op edit): answered at once, nothing to store.
    case unchanged(Result)
    /// A new revision: answered with `result` once the store has committed it. `preceding`:
    /// history notifications published just before the change (a group an undo closed first).
    case changed(Change, Result, notification: String, preceding: [String] = [])
}

/// Stored in the same unit as a change and made visible once it commits (a cut's pasteboard):
/// if the change is refused, so is the companion, and nothing of it is seen.
struct ChangeCompanion: Sendable {
    var writes: [StoreWrite]
    var onCommit: @Sendable () -> Void
}

/// What applying a change in the executor came to: an answer at once (refused, or nothing
/// changed), or a unit to store whose outcome `stored` takes.
enum AppliedChange: Sendable {
    case answer(@Sendable () -> Void)
    case store(PreparedUnit)
}

/// The writes of one applied change, and where the store's outcome goes.
struct PreparedUnit: Sendable {
    var writes: [StoreWrite]
    var stored: @Sendable (Swift.Result<Void, StoreError>) -> Void
}

/// The path every change of the text takes (steps 1–5 of `DocumentService`): applied in the
/// document's executor and submitted to the store from it (so the store sees revisions in
/// order); the store's outcome comes back to the executor as a message (`CommitInbox`), where
/// it is published, and only then is the request answered. Nothing the client hears about is
/// ever missing after a crash.
///
/// It promises, per document: changes are published in revision order, each once, and only
/// after the store committed it; a refused one puts the document back as stored
/// (`DocumentPersistence.storeFailed`) and is answered `503`.
struct ChangePipeline: Sendable {
    typealias Completion<Result: Sendable> = DocumentService.Completion<Result>

    let replication: any Replication
    let delivery: @Sendable () -> Delivery
    let persistence: DocumentPersistence
    let metrics: Metrics
    let logger: Logger
    /// The size of a long-poll's page (`--edits-page-bytes`).
    let editsPageBytes: Int

    /// A change of the text. `replication` decides where the job runs: at once on a single
    /// node; on several, later, in the sequenced unit that holds the document's head row. The
    /// outcome comes back the same way.
    func commitChange<Result: Sendable>(
        _ handle: DocumentHandle,
        companion: @escaping @Sendable () -> ChangeCompanion? = { nil },
        completion: @escaping Completion<Result>,
        _ body: @escaping @Sendable (inout DocumentState) throws(APIError) -> ChangeOutcome<Result>
    ) {
        let delivery = delivery()
        replication.order(handle, fail: { completion(.failure($0)) }) { [self] st in
            applyChange(&st, handle, delivery: delivery, companion: companion, completion: completion, body)
        }
    }

    /// Steps 1–3 in the document's executor: checks, `body`, the journal drained; the unit's
    /// outcome goes to the document's inbox, and from there through `delivery` to its executor.
    func applyChange<Result: Sendable>(
        _ st: inout DocumentState, _ handle: DocumentHandle, delivery: Delivery,
        companion: () -> ChangeCompanion?, completion: @escaping Completion<Result>,
        _ body: (inout DocumentState) throws(APIError) -> ChangeOutcome<Result>
    ) -> AppliedChange {
        if st.deleted { let gone = st.goneError(handle.id); return .answer { completion(.failure(gone)) } }
        if st.savingError { return .answer { completion(.failure(.storageFailing)) } }
        if st.editingDisabled {
            return .answer { completion(.failure(APIError(.forbidden, "editing_disabled", "editing is disabled for this document"))) }
        }
        // Readers see the document's count before the first change in flight. (The
        // contexts' counts are not copied: the copy made the next change copy the whole
        // table, once per commit.)
        let countBefore = st.document.changeCounts.document
        let outcome: ChangeOutcome<Result>
        do throws(APIError) { outcome = try body(&st) } catch { return .answer { completion(.failure(error)) } }
        switch outcome {
        case .unchanged(let result):
            return .answer { completion(.success(result)) }
        case .changed(let change, let result, let notification, let preceding):
            handle.lengthHint.store(st.document.length, ordering: .relaxed)
            handle.revisionHint.store(st.document.revision, ordering: .relaxed)
            st.modified = change.time
            st.lastChangeLocal = true
            st.changeInFlight(countBefore: countBefore)
            let stored = StoredChange(documentID: handle.id, revision: change.revision, payload: ChangeCodec.encode(st.journal?.drain() ?? []),
                                      length: st.document.length)
            let extra = companion()
            // One unit with the companion's writes: both are stored or neither.
            return .store(PreparedUnit(writes: [.append([stored])] + (extra?.writes ?? [])) { [self] stored in
                let outcome = CommitInbox.Outcome(change: change, notification: notification, preceding: preceding, stored: stored) { stored in
                    switch stored {
                    case .success:
                        extra?.onCommit()
                        completion(.success(result))
                    case .failure(.leaseLost): completion(.failure(.documentMoved))
                    case .failure: completion(.failure(.storageFailing))
                    }
                }
                // The store's thread only posts: the executor takes the outcomes where `delivery` runs.
                if handle.inbox.post(outcome) {
                    delivery { [self] in handle.executor.async { [self] st in receiveCommits(&st, handle) } }
                }
            })
        }
    }

    /// In the executor: the store's outcomes for this document, in commit order. Committed
    /// changes are framed and sent in one go (under the executor, where a new subscriber
    /// replays what it missed, so none is lost or doubled); refusals put the document back as
    /// the store holds it, off the event loop since that reads the store. The returned work
    /// (answers, woken long-polls) runs once the executor is left.
    func receiveCommits(_ st: inout DocumentState, _ handle: DocumentHandle) -> (@Sendable () -> Void)? {
        let outcomes = handle.inbox.take()
        guard !outcomes.isEmpty else { return nil }
        let committed = outcomes.filter { if case .success = $0.stored { true } else { false } }
        var woken: [(DocumentState.Poller, ChangesPage)] = []
        if !committed.isEmpty {
            var frames = JSONWriter(capacity: committed.count * 256)
            let history = ServerSentEvents.appendChangeEvents(committed.map { .init(change: $0.change, notification: $0.notification, preceding: $0.preceding) }, to: &frames)
            let revisions = committed.first!.change.revision...committed.last!.change.revision
            woken = sendCommitted(&st, handle, frames.bytes, revisions: revisions, history: history)
            countApplied(committed.map(\.change))
        }
        let due = woken
        let failure = outcomes.lazy.compactMap { if case .failure(let e) = $0.stored { e } else { nil } }.first
        return { [self] in
            for (poller, page) in due { poller.answer(.page(page)) }
            for outcome in committed { outcome.answer(outcome.stored) }
            guard let failure else { return }
            DispatchQueue.global().async { [self] in
                persistence.storeFailed(handle, error: failure)
                for outcome in outcomes { if case .failure = outcome.stored { outcome.answer(outcome.stored) } }
            }
        }
    }

    private func countApplied(_ changes: [Change]) {
        var kinds = (edit: 0, undo: 0, redo: 0)
        for change in changes {
            switch change.kind {
            case .edit: kinds.edit += 1
            case .undo: kinds.undo += 1
            case .redo: kinds.redo += 1
            }
        }
        if kinds.edit > 0 { metrics.increment(#"tandem_changes_applied_total{kind="edit"}"#, by: kinds.edit) }
        if kinds.undo > 0 {
            metrics.increment(#"tandem_changes_applied_total{kind="undo"}"#, by: kinds.undo)
            metrics.increment("tandem_undos_total", by: kinds.undo)
        }
        if kinds.redo > 0 {
            metrics.increment(#"tandem_changes_applied_total{kind="redo"}"#, by: kinds.redo)
            metrics.increment("tandem_redos_total", by: kinds.redo)
        }
    }

    /// In the executor: committed changes' frames go out and readers move up to them. Returns
    /// the long-polls woken and their pages, to answer once the executor is left.
    func sendCommitted(_ st: inout DocumentState, _ handle: DocumentHandle, _ frames: [UInt8], revisions: ClosedRange<Int>,
                       history: [EventChannel.Coalescable]) -> [(DocumentState.Poller, ChangesPage)] {
        let newest = revisions.upperBound
        st.committedRevision = max(st.committedRevision, newest)
        st.changeCommitted(newest)
        handle.events.send(frames, revisions: revisions, coalescable: history)
        let revision = st.committedRevision
        let isDue = { (p: DocumentState.Poller) in p.since < revision || (p.behind && p.since <= revision) }
        let due = st.pollers.filter(isDue)
        guard !due.isEmpty else { return [] }
        st.pollers.removeAll(where: isDue)
        return due.map { ($0, ChangesPage(st, since: $0.since, maxBytes: editsPageBytes)) }
    }

    /// The undo manager notification a change of this kind is announced with.
    static func notification(of kind: ChangeKind) -> String {
        switch kind {
        case .edit: "checkpoint"
        case .undo: "didUndo"
        case .redo: "didRedo"
        }
    }
}
