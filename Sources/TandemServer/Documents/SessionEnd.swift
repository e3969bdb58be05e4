import TandemCore
import TandemStore

extension DocumentHandle {
    /// A session ended: its undo context goes (removeAllActions(withTarget:)) and so does
    /// its selection, and the others see it leave. The removal is stored at once: without
    /// it, a restart before the next change would bring the session's groups back.
    func sessionEnded(_ session: String, context: ServerContext) {
        let (wasPresent, ticket) = state.withLock { st -> (Bool, StoreTicket?) in
            st.document.undoManager.removeAllActions(withTarget: session)
            let had = st.document.selection(for: session) != nil
            st.document.removeSelection(for: session)
            return (had, st.deleted ? nil : context.submitPendingJournal(st, id: id))
        }
        // On failure the events stay in the buffer and the next stored change carries them;
        // going back to the stored state would bring the ended session's groups back.
        if case .failure(let error)? = ticket?.wait() {
            context.logger.warning("could not store the end of session \(session) in \(id): \(error)")
        }
        if wasPresent || events.sessions.contains(session) { context.broadcastPresence(self) }
    }
}
