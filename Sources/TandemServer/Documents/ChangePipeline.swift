import TandemCore
import TandemHTTP
import TandemStore

/// What a change did to the document under its lock.
enum ChangeOutcome<Result: Sendable> {
    /// Nothing changed (a no-op edit): answered at once, nothing to store.
    case unchanged(Result)
    /// A new revision: answered with `result` once the store has committed it.
    case changed(Change, Result, notification: String)
}

/// Stored in the same unit as a change and made visible once it commits (a cut's pasteboard):
/// if the change is refused, so is the companion, and nothing of it is seen.
struct ChangeCompanion: Sendable {
    var writes: [StoreWrite]
    var onCommit: @Sendable () -> Void
}

extension DocumentService {
    /// The path every change of the text takes (steps 1–5 of `DocumentService`): applied
    /// under the document's lock, queued for the group commit while still holding it (so the
    /// store sees revisions in order; the lock is never held while waiting for the store,
    /// whose writer takes it to publish), and answered, broadcast and long-polls woken only
    /// once it is committed. Nothing the client hears about is ever missing after a crash.
    ///
    /// In a cluster the same steps run later, on the store's writer, inside the transaction
    /// that holds the document's head row (`ClusterSequencer`).
    func commitChange<Result: Sendable>(
        _ handle: DocumentHandle,
        companion: @escaping @Sendable () -> ChangeCompanion? = { nil },
        completion: @escaping Completion<Result>,
        _ body: @escaping @Sendable (inout DocumentState) throws(APIError) -> ChangeOutcome<Result>
    ) {
        if let cluster {
            sequence(cluster, handle, fail: { completion(.failure($0)) }) { [self] st in
                applyChange(&st, handle, companion: companion, completion: completion, body)
            }
            return
        }
        let applied: AppliedChange = handle.state.withLock { st in
            let applied = applyChange(&st, handle, companion: companion, completion: completion, body)
            if case .store(let unit) = applied { store.submit(unit.writes, completion: unit.stored) }
            return applied
        }
        if case .answer(let answer) = applied { answer() }
    }

    /// What applying a change under the lock came to: an answer at once (refused, or nothing
    /// changed), or a unit to store whose outcome `stored` takes.
    enum AppliedChange: Sendable {
        case answer(@Sendable () -> Void)
        case store(PreparedUnit)
    }

    struct PreparedUnit: Sendable {
        var writes: [StoreWrite]
        var stored: @Sendable (Swift.Result<Void, StoreError>) -> Void
    }

    /// Steps 1–3 under the caller's hold of the lock: checks, `body`, the journal drained.
    func applyChange<Result: Sendable>(
        _ st: inout DocumentState, _ handle: DocumentHandle,
        companion: () -> ChangeCompanion?, completion: @escaping Completion<Result>,
        _ body: (inout DocumentState) throws(APIError) -> ChangeOutcome<Result>
    ) -> AppliedChange {
        if st.deleted { return .answer { completion(.failure(.notFound("document '\(handle.id)'"))) } }
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
        case .changed(let change, let result, let notification):
            handle.lengthHint.store(st.document.length, ordering: .relaxed)
            handle.revisionHint.store(st.document.revision, ordering: .relaxed)
            st.modified = change.time
            st.lastChangeLocal = true
            st.changeInFlight(countBefore: countBefore)
            let stored = StoredChange(documentID: handle.id, revision: change.revision, payload: ChangeCodec.encode(st.journal?.drain() ?? []))
            let extra = companion()
            // One unit with the companion's writes: both are stored or neither.
            return .store(PreparedUnit(writes: [.append([stored])] + (extra?.writes ?? [])) { [self] stored in
                switch stored {
                case .success:
                    extra?.onCommit()
                    commits.add(.init(handle: handle, change: change, notification: notification) { completion(.success(result)) })
                case .failure(let error):
                    storeFailed(handle, error: error)
                    completion(.failure(.storageFailing))
                }
            })
        }
    }

    /// A group commit is durable: publish its changes, then answer their requests. Frames go
    /// out under the document's lock, the same lock under which a new subscriber replays what
    /// it missed, so none is lost or doubled. Runs on the store's writer (or syncer) thread.
    func publishCommits() {
        let entries = commits.take()
        guard !entries.isEmpty else { return }
        var start = 0
        while start < entries.count {
            let handle = entries[start].handle
            var end = start + 1
            while end < entries.count && entries[end].handle === handle { end += 1 }
            publish(entries[start..<end], of: handle)
            start = end
        }
        var kinds = (edit: 0, undo: 0, redo: 0)
        for entry in entries {
            switch entry.change.kind {
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
        for entry in entries { entry.answer() }
    }

    /// Consecutive committed changes of one document, oldest first.
    private func publish(_ entries: ArraySlice<CommitPublisher.Entry>, of handle: DocumentHandle) {
        var frames = JSONWriter(capacity: entries.count * 256)
        let history = ServerSentEvents.appendChangeEvents(entries.map { .init(change: $0.change, notification: $0.notification) }, to: &frames)
        let revisions = entries.first!.change.revision...entries.last!.change.revision
        let woken = handle.state.withLock { st in sendCommitted(&st, handle, frames.bytes, revisions: revisions, history: history) }
        for (responder, page) in woken { responder.send(.json(page.encode(maxBytes: configuration.editsPageBytes).bytes)) }
    }

    /// Under the document's lock: committed changes' frames go out and readers move up to
    /// them, under the same lock under which a new subscriber replays what it missed, so none
    /// is lost or doubled. Returns the long-polls woken and their pages, to write and answer
    /// after releasing the lock.
    func sendCommitted(_ st: inout DocumentState, _ handle: DocumentHandle, _ frames: [UInt8], revisions: ClosedRange<Int>,
                       history: [EventChannel.Coalescable]) -> [(HTTPResponder, ChangesPage)] {
        let newest = revisions.upperBound
        st.committedRevision = max(st.committedRevision, newest)
        st.changeCommitted(newest)
        handle.events.send(frames, revisions: revisions, coalescable: history)
        let revision = st.committedRevision
        let isDue = { (p: DocumentState.Poller) in p.since < revision || (p.behind && p.since <= revision) }
        let due = st.pollers.filter(isDue)
        guard !due.isEmpty else { return [] }
        st.pollers.removeAll(where: isDue)
        return due.map { ($0.responder, changesPage(st, since: $0.since, maxBytes: configuration.editsPageBytes)) }
    }
}
