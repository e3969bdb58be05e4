import TandemCore
import TandemHTTP
import TandemStore

/// What a change request did to the document under its lock.
enum ChangeOutcome {
    /// Nothing changed (a no-op edit): answer at once, nothing to store.
    case unchanged(HTTPResponse)
    /// A new revision: answered with `response` once the store has committed it.
    case changed(Change, response: [UInt8], notification: String)
}

/// Stored in the same unit as a change and made visible once it commits (a cut's pasteboard):
/// if the change is refused, so is the companion, and nothing of it is seen.
struct ChangeCompanion: Sendable {
    var writes: [StoreWrite]
    var onCommit: @Sendable () -> Void
}

extension ServerContext {
    /// The one path every change takes: apply under the document's lock, queue it for the
    /// group commit while still holding the lock (so the store sees revisions in order; the
    /// lock is never held while waiting for the store, whose writer takes it to publish),
    /// and answer, broadcast and wake long-polls only once it is committed. Nothing the
    /// client hears about is ever missing after a crash. (Idempotency-Key is handled for
    /// every endpoint by the router wrapper, see `makeRouter`.)
    func performChange(
        _ handle: DocumentHandle,
        request: HTTPRequest,
        responder: HTTPResponder,
        session: Session?,
        companion: () -> ChangeCompanion? = { nil },
        _ body: (inout DocumentState) throws(APIError) -> ChangeOutcome
    ) {
        let finish: @Sendable (HTTPResponse) -> Void = { response in responder.send(response) }
        let result: Result<ChangeOutcome, APIError> = handle.state.withLock { st in
            if st.deleted { return .failure(.notFound("document '\(handle.id)'")) }
            if st.savingError { return .failure(.storageFailing) }
            if st.editingDisabled {
                return .failure(APIError(.forbidden, "editing_disabled", "editing is disabled for this document"))
            }
            // Readers see the document's count before the first change in flight. (The
            // contexts' counts are not copied: the copy made the next change copy the whole
            // table, once per commit.)
            let countBefore = st.document.changeCounts.document
            let outcome: ChangeOutcome
            do throws(APIError) { outcome = try body(&st) } catch { return .failure(error) }
            if case .changed(let change, let response, let notification) = outcome {
                handle.lengthHint.store(st.document.length, ordering: .relaxed)
                handle.revisionHint.store(st.document.revision, ordering: .relaxed)
                st.modified = change.time
                st.changeInFlight(countBefore: countBefore)
                let stored = StoredChange(documentID: handle.id, revision: change.revision, payload: ChangeCodec.encode(st.journal?.drain() ?? []))
                let extra = companion()
                // One unit with the companion's writes: both are stored or neither.
                store.submit([.append([stored])] + (extra?.writes ?? [])) { [self] result in
                    switch result {
                    case .success:
                        extra?.onCommit()
                        commits.add(.init(handle: handle, change: change, notification: notification) { finish(.json(response)) })
                    case .failure(let error):
                        storeFailed(handle, error: error)
                        finish(APIError.storageFailing.response)
                    }
                }
            }
            return .success(outcome)
        }
        switch result {
        case .failure(let error): finish(error.response)
        case .success(.unchanged(let response)): finish(response)
        case .success(.changed): break
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
        let newest = revisions.upperBound
        let woken: [(HTTPResponder, [UInt8])] = handle.state.withLock { st in
            st.committedRevision = max(st.committedRevision, newest)
            st.changeCommitted(newest)
            handle.events.send(frames.bytes, revisions: revisions, coalescable: history)
            let revision = st.committedRevision
            let due = st.pollers.filter { $0.since < revision }
            guard !due.isEmpty else { return [] }
            st.pollers.removeAll { $0.since < revision }
            return due.map { ($0.responder, changesJSON(st, since: $0.since)) }
        }
        for (responder, body) in woken { responder.send(.json(body)) }
    }

    /// A `history` event that no change carries (a group closed, the history cleared); the
    /// ones changes carry are framed by `ServerSentEvents.appendChangeEvents`.
    func historyEventJSON(_ notification: String, session: String?) -> [UInt8] {
        var w = JSONWriter(capacity: 96)
        w.beginObject()
        w.key("notification"); w.string(notification)
        w.key("session"); w.optionalString(session)
        w.endObject()
        return w.bytes
    }

    /// Changes after `since`, up to what is committed, as the JSON array of `GET …/edits`.
    func changesJSON(_ st: DocumentState, since: Int) -> [UInt8] {
        var w = JSONWriter(capacity: 256)
        w.beginArray()
        if let list = try? st.document.changes(since: since) {
            for c in list where c.revision <= st.committedRevision { DocumentJSON.change(c, to: &w) }
        }
        w.endArray()
        return w.bytes
    }
}
