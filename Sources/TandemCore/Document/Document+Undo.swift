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

    /// NSUndoManager.undoNestedGroup: undoes the last closed group, nested or not, without
    /// closing an open one. Inside an open group that is the last closed nested group, as
    /// long as nothing was registered since it closed; otherwise `groupOpen`.
    @discardableResult
    public func undoNestedGroup(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try revert(scope: scope, redo: false, closeOpen: false, time: time)
    }

    private func revert(scope: UndoScope, redo: Bool, closeOpen: Bool, time: Double) throws(DocumentError) -> Change {
        guard !isEditingDisabled else { throw .editingDisabled }
        let um = undoManager
        let openLevels = closeOpen && !redo ? um.openLevels : 0
        let groupCount = um.groups.count
        let event: DocumentEvent = redo ? .redo(scope: scope, time: time) : .undo(scope: scope, time: time, nested: !closeOpen)
        let c: Int
        do { c = try um.target(scope, redo: redo, closeOpen: closeOpen) } catch {
            // An undo that closed an open group and then found nothing to undo still closed
            // it: journaled, so a replay closes it too.
            if !redo && closeOpen && um.openLevels != openLevels { log.journal?(event) }
            throw error
        }
        // A nested group split off its open group is a group of its own from now on: counted
        // as done here, so its undo below leaves the count where it was.
        if um.groups.count > groupCount { countChange(.done) }
        let session = um.session(ofChain: c)
        let noteScope = UndoManager.scope(ofSession: session)
        // As NSUndoManager: will/did notifications bracket the undo, and isUndoing
        // (isRedoing) is true while its change is applied and reported to the journal.
        um.post(redo ? .willRedo : .willUndo, noteScope)
        if redo { um.isRedoing = true } else { um.isUndoing = true }
        defer { um.isUndoing = false; um.isRedoing = false }
        let done = {
            um.isUndoing = false
            um.isRedoing = false
            um.post(redo ? .didRedo : .didUndo, noteScope)
        }
        let kind: ChangeKind = redo ? .redo : .undo
        var pending = try um.prepare(chain: c, redo: redo)
        var revision: Int?
        var skipped: [SkippedGroup] = []
        while true {
            // The mapped inverse is valid by construction, so commit cannot throw. An
            // inverse that changes nothing (others deleted all of it) pops its group and
            // the next one is undone instead.
            revision = (try? commit(pending.mapped.inverse, chain: c, kind: kind, owner: Int32(um.groups.count), time: time)) ?? nil
            if revision != nil { break }
            let erased = um.groups[Int(pending.group)]
            skipped.append(SkippedGroup(actionName: um.name(erased.name), revision: Int(erased.first)))
            um.discard(chain: c, group: pending.group, mapped: pending.mapped, redo: redo)
            guard let next = try? um.prepare(chain: c, redo: redo) else {
                // The discarded groups changed the state: journaled, so a replay discards
                // them too (and meets the same error).
                log.journal?(event)
                done()
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
        log.journal?(event)
        done()
        return Change(revision: revision, session: session, kind: kind, group: Int(newGroup),
                      actionName: um.name(um.groups[Int(newGroup)].name), operation: m.inverse, time: time, range: range,
                      skipped: skipped)
    }
}
