import Foundation
import TandemCore
import TandemStore

/// People who leave: a session whose last event stream on a document closed, and that has not
/// opened another within `leavingGrace` (a reconnect), leaves the document's presence: its
/// selection goes, on every node, so that others stop seeing its avatar and caret within
/// seconds rather than at the session's timeout. A client that never opened a stream there
/// (curl setting a selection) keeps its place, as before.
extension SessionEnds {
    static let leavingGrace: Double = 2

    /// A stream of `session` on the document closed (after the channel dropped it).
    func streamClosed(of session: String, in handle: DocumentHandle) {
        events.broadcastPresence(handle)
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
        events.broadcastPresence(handle)
        // The other nodes, if any, drop it too.
        replication.selectionRemoved(of: session, in: handle)
    }
}
