import TandemCore
import TandemStore

/// Selections in a cluster: a session's selection, set on one node, is stored (`meta`
/// "selection:<document>/<session>", with the revision it is at) through a sequenced unit, so
/// it takes its place among the document's changes; the other nodes set it from there, mapped
/// through what happened since. (Edits move their session's caret the same way on every node,
/// as each replays the same edits.)
extension ClusterSync {
    static func selectionKey(document: String, session: String) -> String {
        ClusterEntry.selectionPrefix + document + "/" + session
    }

    /// Stores the session's current selection in the document; `then` once stored.
    func shareSelection(of session: Session, in handle: DocumentHandle, then: @escaping DocumentService.Completion<Void>) {
        let delivery = delivery()
        replication.order(handle, fail: { then(.failure($0)) }) { st in
            if st.deleted { let gone = st.goneError(handle.id); return .answer { then(.failure(gone)) } }
            guard let selection = st.document.selection(for: session.id) else { return .answer { then(.success(())) } }
            var w = JSONWriter(capacity: 64)
            w.beginObject()
            w.key("anchor"); w.int(selection.anchor)
            w.key("head"); w.int(selection.head)
            w.key("revision"); w.int(st.document.revision)
            w.endObject()
            let write = StoreWrite.setMeta(Self.selectionKey(document: handle.id, session: session.id), w.bytes)
            return .store(PreparedUnit(writes: [write], stored: delivery.completion { stored in
                then(stored.map { _ in () }.mapError { _ in .storageFailing })
            }))
        }
    }

    /// A selection another node stored: set here, mapped from its revision (after the
    /// document's own catch-up in the same sync), and told to this node's subscribers.
    func refreshSelection(_ key: String) throws(StoreError) {
        guard let slash = key.firstIndex(of: "/") else { return }
        let id = String(key[..<slash]), session = String(key[key.index(after: slash)...])
        guard let handle = handles.find(id) else { return }
        guard let bytes = try store.meta(Self.selectionKey(document: id, session: session)) else {
            // Removed: the session left the document on another node (`leave`).
            let had = handle.executor.sync { st -> Bool in
                guard st.document.selection(for: session) != nil else { return false }
                st.document.removeSelection(for: session)
                return true
            }
            if had { events.broadcastPresence(handle) }
            return
        }
        guard let v = try? JSONParser.parse(bytes),
              let anchor = v["anchor"]?.intValue, let head = v["head"]?.intValue, let revision = v["revision"]?.intValue
        else { return }
        let set = handle.executor.sync { st -> Bool in
            guard revision <= st.document.revision else { return false }
            do {
                try st.document.setSelection(Selection(anchor: anchor, head: head), base: revision, for: session)
                return true
            } catch {
                return false
            }
        }
        if set { events.broadcastPresence(handle) }
    }

    /// The session left the document here (`SessionEnds.leave`): the other nodes drop its
    /// selection too, once the removal takes its place among the changes.
    func selectionRemoved(of session: String, in handle: DocumentHandle) {
        replication.order(handle, fail: { _ in }) { st in
            if st.deleted || st.document.selection(for: session) != nil { return .answer {} }
            return .store(PreparedUnit(writes: [.setMeta(Self.selectionKey(document: handle.id, session: session), nil)]) { _ in })
        }
    }
}
