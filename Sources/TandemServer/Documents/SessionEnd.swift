import TandemCore

extension DocumentHandle {
    /// A session ended: its undo context goes (removeAllActions(withTarget:)) and so does
    /// its selection, and the others see it leave.
    func sessionEnded(_ session: String, context: ServerContext) {
        let wasPresent = state.withLock { st -> Bool in
            st.document.undoManager.removeAllActions(withTarget: session)
            let had = st.document.selection(for: session) != nil
            st.document.removeSelection(for: session)
            return had
        }
        if wasPresent || events.sessions.contains(session) { context.broadcastPresence(self) }
    }
}
