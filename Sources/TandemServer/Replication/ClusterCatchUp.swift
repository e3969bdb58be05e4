import Logging
import TandemCore
import TandemStore

/// How a node takes in what other nodes committed to a document: the stored changes after its
/// own revision and the stored pending journal are replayed into its `Document`, exactly as a
/// restart replays them, so every node's undo manager for the document is the same.
///
/// A node's journal buffer holds the events since the last stored change; every one of them
/// is in the store already (undo-state changes are stored through sequenced units too), so the
/// next stored change starts with them and they are skipped, and the stored pending journal
/// extends them. Anything else means this copy went astray: it is rebuilt from the store.
///
/// It promises: a copy that catches up holds exactly what the store holds, published to its
/// streams and long-polls in revision order after this node's own committed changes; one that
/// cannot is rebuilt from the store (at once under the document's row lock, else in a unit
/// queued for it), never left astray.
struct ClusterCatchUp: Sendable {
    let pipeline: ChangePipeline
    let persistence: DocumentPersistence
    let events: DocumentEvents
    let replication: any Replication
    let logger: Logger

    init(_ documents: DocumentService) {
        pipeline = documents.pipeline
        persistence = documents.persistence
        events = documents.events
        replication = documents.replication
        logger = documents.logger
    }

    enum Absorbed {
        /// Nothing new, or the document is busy with a change of this node's in flight (whose
        /// unit holds the row lock: it catches up itself).
        case nothing
        case absorbed(woken: [(DocumentState.Poller, ChangesPage)], undoState: Bool)
        /// The stored log does not continue this copy (trimmed past it, or a journal that does
        /// not extend the buffer): rebuild from the store.
        case diverged(String)
    }

    /// Brings `handle` up to the stored `revision` and `journal` (its pending-journal meta),
    /// reading the changes it lacks with `changes(after:)`. With `reloadAllowed` (under the
    /// document's row lock) a diverged copy is rebuilt from the store at once; otherwise a
    /// sequenced unit is queued to do it.
    func catchUp(_ handle: DocumentHandle, revision: Int, journal: [UInt8]?, reloadAllowed: Bool,
                 changes: (Int) throws(StoreError) -> [StoredChange]) throws(StoreError) {
        // This node's own committed changes still in the inbox go out first, in order, so that
        // what others committed after them is taken in after them.
        let (local, published) = handle.executor.sync { st in (st.document.revision, pipeline.receiveCommits(&st, handle)) }
        published?()
        let fetched = revision > local ? try changes(local) : []
        let pending = journal.flatMap(DocumentPersistence.decodePending)
        let outcome = handle.executor.sync { st in absorb(&st, handle, fetched, pending: pending) }
        switch outcome {
        case .nothing:
            break
        case .absorbed(let woken, let undoState):
            for (poller, page) in woken { poller.answer(.page(page)) }
            if undoState { events.broadcastState(handle) }
        case .diverged(let why):
            guard reloadAllowed else {
                replication.order(handle, fail: { _ in }) { _ in .answer {} }
                return
            }
            logger.warning("document \(handle.id) is rebuilt from the store: \(why)")
            do {
                try persistence.reloadFromStore(handle, keepSavingError: false)
            } catch let error as StoreError {
                throw error
            } catch {
                throw .corrupt("document \(handle.id) cannot be rebuilt: \(error)")
            }
            // Streams start again from what the store holds.
            handle.events.closeAll()
        }
    }

    /// In the document's executor: replays what is new and publishes the new changes.
    func absorb(_ st: inout DocumentState, _ handle: DocumentHandle, _ fetched: [StoredChange],
                pending: (after: Int, created: Double?, events: [DocumentEvent])?) -> Absorbed {
        guard !st.deleted, st.inFlight.isEmpty, !st.savingError else { return .nothing }
        let start = st.document.revision
        let news = fetched.filter { $0.revision > start }
        if let first = news.first, first.revision != start + 1 {
            return .diverged("the stored log starts at \(first.revision), this copy is at \(start)")
        }
        do {
            for change in news {
                var events = try ChangeCodec.decode(change.payload)
                let buffered = st.journal?.events ?? []
                if !buffered.isEmpty {
                    guard events.count >= buffered.count, Array(events[..<buffered.count]) == buffered else {
                        return .diverged("stored change \(change.revision) does not start with the pending events")
                    }
                    events.removeFirst(buffered.count)
                }
                for event in events { try st.document.replay(event) }
                guard st.document.revision == change.revision else {
                    return .diverged("stored change \(change.revision) rebuilt revision \(st.document.revision)")
                }
                _ = st.journal?.drain()
            }
        } catch {
            return .diverged("\(error)")
        }
        var undoState = false
        if let pending, pending.after == st.document.revision {
            let buffered = st.journal?.events ?? []
            if pending.events.count > buffered.count {
                guard Array(pending.events[..<buffered.count]) == buffered else {
                    return .diverged("the stored pending journal does not extend this copy's")
                }
                do {
                    for event in pending.events[buffered.count...] { try st.document.replay(event) }
                } catch {
                    return .diverged("\(error)")
                }
                undoState = true
            }
        }
        guard !news.isEmpty else { return undoState ? .absorbed(woken: [], undoState: true) : .nothing }
        let changes = (try? st.document.changes(since: start)) ?? []
        handle.lengthHint.store(st.document.length, ordering: .relaxed)
        handle.revisionHint.store(st.document.revision, ordering: .relaxed)
        if let last = changes.last { st.modified = last.time }
        st.lastChangeLocal = false
        var frames = JSONWriter(capacity: changes.count * 256)
        let history = ServerSentEvents.appendChangeEvents(changes.map { .init(change: $0, notification: ChangePipeline.notification(of: $0.kind)) }, to: &frames)
        let woken = pipeline.sendCommitted(&st, handle, frames.bytes, revisions: (start + 1)...st.document.revision, history: history)
        return .absorbed(woken: woken, undoState: undoState)
    }
}
