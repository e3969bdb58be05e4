// MARK: - Action names

extension UndoManager {
    /// Names the open group of the scope or, with none open, its latest group.
    /// Nested groups are one group: a name set at the outermost level wins; a name set
    /// inside a nested group is used only while the outer level has set none.
    public func setActionName(_ actionName: String, scope: UndoScope) {
        setName(actionName, scope: scope, outermost: false)
        log.journal?(.setActionName(actionName, scope: scope))
    }

    /// The context setActionName and setActionIsDiscardable act on: the document scope means
    /// the anonymous context while it has a group open, else the latest group by anyone.
    func namedContext(_ scope: UndoScope) -> Int? {
        switch scope {
        case .document: contexts[0].groupingLevel > 0 ? 0 : latestContext(redo: false)
        case .session(let s): contextIndex[s]
        }
    }

    func setName(_ actionName: String, scope: UndoScope, outermost: Bool) {
        guard let c = namedContext(scope) else { return }
        let index = intern(actionName)
        if contexts[c].groupingLevel > 0 {
            let outer = outermost || contexts[c].groupingLevel == 1
            if outer || !contexts[c].openNamedOutside {
                contexts[c].openName = index
                if outer { contexts[c].openNamedOutside = true }
                if contexts[c].openGroup >= 0 { groups[Int(contexts[c].openGroup)].name = index }
            }
        } else if let top = contexts[c].undoTop {
            groups[Int(top)].name = index
            contexts[c].typing = nil
        }
    }

    /// The name of the group the next undo reverts: groups whose whole effect others already
    /// erased are skipped, as the undo skips them.
    public func undoActionName(_ scope: UndoScope) -> String {
        guard let c = context(for: scope, redo: false), let g = offered(context: c, redo: false) else { return "" }
        return name(groups[Int(g)].name)
    }

    public func redoActionName(_ scope: UndoScope) -> String {
        guard let c = context(for: scope, redo: true), let g = offered(context: c, redo: true) else { return "" }
        return name(groups[Int(g)].name)
    }

    public func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    public func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    public func undoMenuItemTitle(_ scope: UndoScope) -> String { undoMenuTitle(forUndoActionName: undoActionName(scope)) }
    public func redoMenuItemTitle(_ scope: UndoScope) -> String { redoMenuTitle(forUndoActionName: redoActionName(scope)) }

    /// Whether an undo would change the text: false when every group left is one others erased.
    public func canUndo(_ scope: UndoScope) -> Bool {
        context(for: scope, redo: false).flatMap { offered(context: $0, redo: false) } != nil
    }

    public func canRedo(_ scope: UndoScope) -> Bool {
        context(for: scope, redo: true).flatMap { offered(context: $0, redo: true) } != nil
    }
}
