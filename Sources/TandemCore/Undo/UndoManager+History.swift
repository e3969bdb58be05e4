// MARK: - History

extension UndoManager {
    public func history(_ scope: UndoScope) -> UndoHistory {
        var undo: [UndoHistory.Entry] = [], redo: [UndoHistory.Entry] = []
        func entry(_ g: Int32, redo: Bool) -> UndoHistory.Entry {
            let group = groups[Int(g)]
            let revision = Int(redo ? group.first : group.last)
            return .init(id: Int(group.id), actionName: name(group.name), revision: revision,
                         session: contexts[Int(group.context)].session, time: log.time(revision))
        }
        let selected: [Int]
        switch scope {
        // The document scope lists what it can reach: a context with a group open is its
        // owner's alone until closed, so the document scope neither undoes nor lists it.
        case .document: selected = contexts.indices.filter { contexts[$0].groupingLevel == 0 }
        case .session(let s): selected = contextIndex[s].map { [$0] } ?? []
        }
        for c in selected {
            undo += contexts[c].undo[contexts[c].undoBottom...].map { entry($0, redo: false) }
            redo += contexts[c].redo.map { entry($0, redo: true) }
        }
        if selected.count > 1 {
            undo.sort { $0.revision < $1.revision }
            redo.sort { $0.revision < $1.revision }
        }
        return UndoHistory(
            canUndo: canUndo(scope), canRedo: canRedo(scope),
            undoActionName: undoActionName(scope), redoActionName: redoActionName(scope),
            undoMenuItemTitle: undoMenuItemTitle(scope), redoMenuItemTitle: redoMenuItemTitle(scope),
            levelsOfUndo: levelsInForce(scope), ownLevelsOfUndo: levelsOfUndo(scope), groupingLevel: groupingLevel(scope),
            undoActionIsDiscardable: undoActionIsDiscardable(scope), redoActionIsDiscardable: redoActionIsDiscardable(scope),
            undoRegistrationEnabled: isUndoRegistrationEnabled(scope),
            undoStack: undo, redoStack: redo)
    }
}
