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

// MARK: - History

extension UndoManager {
    public func history(_ scope: UndoScope) -> UndoHistory {
        var undo: [UndoHistory.Entry] = [], redo: [UndoHistory.Entry] = []
        var groupOf: [Int: Int32] = [:]
        func entry(_ g: Int32, redo: Bool) -> UndoHistory.Entry {
            let group = groups[Int(g)]
            groupOf[Int(group.id)] = g
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
        for i in undo.indices.suffix(UndoHistory.previewedEntries) { undo[i].preview = groupOf[undo[i].id].flatMap { preview(of: $0, redo: false) } }
        for i in redo.indices.suffix(UndoHistory.previewedEntries) { redo[i].preview = groupOf[redo[i].id].flatMap { preview(of: $0, redo: true) } }
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
