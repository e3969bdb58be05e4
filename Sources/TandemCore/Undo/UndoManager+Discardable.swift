// MARK: - Discardable

extension UndoManager {
    /// Marks the scope's open (or latest) group as discardable, as NSUndoManager's
    /// setActionIsDiscardable (e.g. a change that needs no save prompt).
    /// With a group open it marks that group, even before it holds a change (the flag waits
    /// for its first change, like the open group's name); scopes resolve as in setActionName.
    /// A discardable group counts toward no change count; flagging one that already counted
    /// takes its step back (and clearing the flag counts it again).
    public func setActionIsDiscardable(_ discardable: Bool, scope: UndoScope) {
        guard let c = namedContext(scope) else { return }
        if contexts[c].groupingLevel > 0 {
            contexts[c].openDiscardable = discardable
            if contexts[c].openGroup >= 0 { flag(discardable, contexts[c].openGroup, context: c) }
        } else if let top = contexts[c].undoTop {
            flag(discardable, top, context: c)
        } else {
            return
        }
        log.journal?(.setActionIsDiscardable(discardable, scope: scope))
    }

    /// Sets group g's flag; g has a change and sits on c's undo stack, so it has counted (as
    /// done or redone): a flip is recounted.
    func flag(_ discardable: Bool, _ g: Int32, context c: Int) {
        let was = groups[Int(g)].flags & UndoGroup.discardable != 0
        setDiscardable(discardable, g)
        if was != discardable { recountDiscardable(c, discardable) }
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
