import Foundation
import TandemCore
import TandemStore

/// People who leave: a session whose last event stream on a document closed, and that has not
/// opened another within `leavingGrace` (a reconnect), leaves the document's presence: its
/// selection goes, on every node, so that others stop seeing its avatar and caret within
/// seconds rather than at the session's timeout. A client that never opened a stream there
/// (curl setting a selection) keeps its place, as before.
extension DocumentService {
    static let leavingGrace: Double = 2

    /// A stream of `session` on the document closed (after the channel dropped it).
    func streamClosed(of session: String, in handle: DocumentHandle) {
        broadcastPresence(handle)
        guard !handle.events.sessions.contains(session) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.leavingGrace) { [self] in
            guard !handle.events.sessions.contains(session) else { return }
            leave(session, handle)
        }
    }

    private func leave(_ session: String, _ handle: DocumentHandle) {
        let had = handle.executor.sync { st -> Bool in
            guard !st.deleted, st.document.selection(for: session) != nil else { return false }
            st.document.removeSelection(for: session)
            return true
        }
        guard had else { return }
        broadcastPresence(handle)
        guard replication.shared else { return }
        // The other nodes drop it too, once the removal takes its place among the changes.
        replication.order(handle, fail: { _ in }) { st in
            if st.deleted || st.document.selection(for: session) != nil { return .answer {} }
            return .store(PreparedUnit(writes: [.setMeta(Self.selectionKey(document: handle.id, session: session), nil)]) { _ in })
        }
    }
}
