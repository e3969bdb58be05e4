// MARK: - Discardable

extension UndoManager {
    /// Marks the scope's open (or latest) group as discardable, as NSUndoManager's
    /// setActionIsDiscardable (e.g. a change that needs no save prompt).
    /// With a group open it marks that group, even before it holds a change (the flag waits
    /// for its first change, like the open group's name); scopes resolve as in setActionName.
    public func setActionIsDiscardable(_ discardable: Bool, scope: UndoScope) {
        guard let c = namedContext(scope) else { return }
        if contexts[c].groupingLevel > 0 {
            contexts[c].openDiscardable = discardable
            if contexts[c].openGroup >= 0 { setDiscardable(discardable, contexts[c].openGroup) }
        } else if let top = contexts[c].undoTop {
            setDiscardable(discardable, top)
        } else {
            return
        }
        log.journal?(.setActionIsDiscardable(discardable, scope: scope))
    }

    func setDiscardable(_ discardable: Bool, _ g: Int32) {
        if discardable { groups[Int(g)].flags |= UndoGroup.discardable } else { groups[Int(g)].flags &= ~UndoGroup.discardable }
    }

    public func undoActionIsDiscardable(_ scope: UndoScope) -> Bool {
        guard let c = context(for: scope, redo: false), let g = offered(context: c, redo: false) else { return false }
        return groups[Int(g)].flags & UndoGroup.discardable != 0
    }

    public func redoActionIsDiscardable(_ scope: UndoScope) -> Bool {
        guard let c = context(for: scope, redo: true), let g = offered(context: c, redo: true) else { return false }
        return groups[Int(g)].flags & UndoGroup.discardable != 0
    }
}
