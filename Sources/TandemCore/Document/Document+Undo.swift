extension Document {
    /// Undoes the scope's latest group: its inverse, transformed through every later
    /// change by anyone, applied as a new change. A level-1 open group is closed first.
    @discardableResult
    public func undo(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try revert(scope: scope, redo: false, closeOpen: true, time: time)
    }

    /// Redoes the scope's latest undone group.
    @discardableResult
    public func redo(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try revert(scope: scope, redo: true, closeOpen: true, time: time)
    }

    /// NSUndoManager.undoNestedGroup: undoes the latest closed group without closing an
    /// open one; `groupOpen` if the open group already holds changes.
    @discardableResult
    public func undoNestedGroup(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try revert(scope: scope, redo: false, closeOpen: false, time: time)
    }

    private func revert(scope: UndoScope, redo: Bool, closeOpen: Bool, time: Double) throws(DocumentError) -> Change {
        guard !isEditingDisabled else { throw .editingDisabled }
        let um = undoManager
        let c = try um.target(scope, redo: redo, closeOpen: closeOpen)
        let session = um.session(ofChain: c)
        let noteScope = UndoManager.scope(ofSession: session)
        // As GNUstep's NSUndoManager: will/did notifications bracket the undo; isUndoing
        // (isRedoing) is true only while the inverse is computed and applied.
        um.post(redo ? .willRedo : .willUndo, noteScope)
        if redo { um.isRedoing = true } else { um.isUndoing = true }
        defer { um.isUndoing = false; um.isRedoing = false }
        let post = { um.isUndoing = false; um.isRedoing = false; um.post(redo ? .didRedo : .didUndo, noteScope) }
        let kind: ChangeKind = redo ? .redo : .undo
        var pending = try um.prepare(chain: c, redo: redo)
        var revision: Int?
        while true {
            // The mapped inverse is valid by construction, so commit cannot throw. An
            // inverse that changes nothing (others deleted all of it) pops its group and
            // the next one is undone instead.
            revision = (try? commit(pending.mapped.inverse, chain: c, kind: kind, owner: Int32(um.groups.count), time: time)) ?? nil
            if revision != nil { break }
            um.discard(chain: c, group: pending.group, mapped: pending.mapped, redo: redo)
            guard let next = try? um.prepare(chain: c, redo: redo) else {
                post()
                log.journal?(redo ? .redo(scope: scope, time: time) : .undo(scope: scope, time: time, nested: !closeOpen))
                throw redo ? .nothingToRedo : .nothingToUndo
            }
            pending = next
        }
        let (g, m) = pending
        let newGroup = Int32(um.groups.count)
        guard let revision else { throw redo ? .nothingToRedo : .nothingToUndo }
        um.finish(chain: c, group: g, mapped: m, revision: revision, redo: redo, newGroup: newGroup)
        countChange(redo ? .redone : .undone)
        let range = log.range(at: revision)
        mapSelections(through: revision, owner: session, landing: range.map(Selection.init))
        post()
        log.journal?(redo ? .redo(scope: scope, time: time) : .undo(scope: scope, time: time, nested: !closeOpen))
        return Change(revision: revision, session: session, kind: kind, group: Int(newGroup),
                      actionName: um.name(um.groups[Int(newGroup)].name), operation: m.inverse, time: time, range: range)
    }
}
