// MARK: - Removing

extension UndoManager {
    /// Clears every context and, as NSUndoManager's, re-enables registration (the document's
    /// and every session's).
    public func removeAllActions() {
        for c in contexts.indices { clear(c); contexts[c].registrationDisabled = 0 }
        registrationDisabled = 0
        log.journal?(.removeAllActions(scope: nil))
    }

    /// `.document` is `removeAllActions()`; `.session(s)` clears only that session's
    /// context and leaves registration (the document's and the session's) as it is.
    public func removeAllActions(_ scope: UndoScope) {
        switch scope {
        case .document:
            for c in contexts.indices { clear(c); contexts[c].registrationDisabled = 0 }
            registrationDisabled = 0
        case .session(let s):
            guard let c = contextIndex[s] else { return }
            clear(c)
        }
        log.journal?(.removeAllActions(scope: scope))
    }

    /// Clears what `session` registered when the session ends, and its context's open groups
    /// and settings with it: nothing can close or use them any more. The context is then as
    /// a new one would be, so `compactContexts` drops it once the log no longer names it (an
    /// ended session that had left a group open, or set a levelsOfUndo of its own, kept its
    /// context in memory and in every snapshot for ever). A session that never had an undo
    /// context here changes nothing and journals nothing.
    public func removeAllActions(withTarget session: SessionID) {
        guard let c = contextIndex[session] else { return }
        clear(c)
        contexts[c] = UndoContext(session: session)
        log.journal?(.removeAllActionsWithTarget(session))
    }

    func clear(_ c: Int) {
        for g in contexts[c].undo[contexts[c].undoBottom...] { kill(g); liveUndoCount -= 1 }
        for g in contexts[c].redo { kill(g) }
        contexts[c].undo = []
        contexts[c].undoBottom = 0
        contexts[c].redo = []
        contexts[c].openGroup = -1
        contexts[c].typing = nil
    }

    func clearRedo(_ c: Int) {
        guard !contexts[c].redo.isEmpty else { return }
        for g in contexts[c].redo { kill(g) }
        contexts[c].redo.removeAll(keepingCapacity: true)
    }
}
