// MARK: - Undo and redo

extension Document {
    /// Undoes the scope's latest group: its inverse, transformed through every later
    /// change by anyone, applied as a new change. A level-1 open group is closed first.
    /// The change is the scope's session's; see `perform` to name another requester.
    @discardableResult
    public func undo(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try perform(UndoRequest(.undo, scope: scope, requester: scope.sessionID, time: time))
    }

    /// Redoes the scope's latest undone group.
    @discardableResult
    public func redo(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try perform(UndoRequest(.redo, scope: scope, requester: scope.sessionID, time: time))
    }

    /// NSUndoManager.undoNestedGroup: undoes the last closed group, nested or not, without
    /// closing an open one. Inside an open group that is the last closed nested group, as
    /// long as nothing was registered since it closed; otherwise `groupOpen`.
    @discardableResult
    public func undoNestedGroup(scope: UndoScope, time: Double) throws(DocumentError) -> Change {
        try perform(UndoRequest(.undoNestedGroup, scope: scope, requester: scope.sessionID, time: time))
    }

    /// Selective undo: the group `id` of `session`'s own undo stack, wherever it sits,
    /// transformed through everything after it (the session's own later groups too), goes
    /// to the redo stack; the groups above it stay. `notYourGroup` for another session's
    /// group, `groupAlreadyUndone` for one on its redo stack, `groupNotFound` otherwise.
    @discardableResult
    public func undo(group id: Int, session: SessionID?, time: Double) throws(DocumentError) -> Change {
        try perform(UndoRequest(.undo, scope: UndoManager.scope(ofSession: session), requester: session, group: id, time: time))
    }

    /// Carries out an undo or redo request. The change it logs is the requester's; it names
    /// the group it reverted (`reverts`) and what of the group it could not revert.
    @discardableResult
    public func perform(_ request: UndoRequest) throws(DocumentError) -> Change {
        guard !isEditingDisabled else { throw .editingDisabled }
        let um = undoManager
        let redo = request.kind == .redo
        let closeOpen = request.kind != .undoNestedGroup
        let openLevels = closeOpen && !redo ? um.openLevels : 0
        let groupCount = um.groups.count
        let event = DocumentEvent.revert(request)
        let c: Int
        var selected: Int32?
        do throws(DocumentError) {
            if let id = request.group, !redo {
                (c, selected) = try um.selectiveTarget(id: id, session: request.requester)
            } else {
                c = try um.target(request.scope, redo: redo, closeOpen: closeOpen)
            }
        } catch {
            // An undo that closed an open group and then found nothing to undo still closed
            // it: journaled, so a replay closes it too.
            if !redo && closeOpen && um.openLevels != openLevels { log.journal?(event) }
            throw error
        }
        // A nested group split off its open group is a group of its own from now on: counted
        // as done here, so its undo below leaves the count where it was.
        let context = um.session(ofContext: c)
        if um.groups.count > groupCount { countChange(.done, context: context, group: Int32(um.groups.count - 1)) }
        if let g = selected ?? (redo ? um.contexts[c].redo.last : um.contexts[c].undoTop), selected != nil || g != um.contexts[c].openGroup {
            do throws(DocumentError) { try um.checkMappingWork(g) } catch {
                // Refused before anything is mapped; an open group it closed on the way stays
                // closed, journaled so that a replay closes it too.
                if um.openLevels != openLevels || um.groups.count > groupCount { log.journal?(event) }
                throw error
            }
        }
        let noteScope = UndoManager.scope(ofSession: context)
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
        var pending = try um.prepare(context: c, redo: redo, selected: selected)
        var revision: Int?
        var skipped: [SkippedGroup] = []
        while true {
            // The mapped inverse is valid by construction, so commit cannot throw. An
            // inverse that changes nothing (others deleted all of it) pops its group and
            // the next one is undone instead (a selective undo asked for that one alone).
            revision = (try? commit(pending.mapped.inverse, group: Int32(um.groups.count), context: c, kind: kind, time: request.time,
                                    restoring: pending.mapped.inserted)) ?? nil
            if revision != nil { break }
            let erased = um.groups[Int(pending.group)]
            skipped.append(SkippedGroup(actionName: um.name(erased.name), revision: Int(erased.first)))
            um.discard(context: c, group: pending.group, mapped: pending.mapped, redo: redo)
            guard selected == nil, let next = try? um.prepare(context: c, redo: redo) else {
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
        um.finish(context: c, group: g, mapped: m, revision: revision, redo: redo, newGroup: newGroup)
        log.recordRevert(at: revision, requester: request.requester, lost: m.lost)
        countChange(redo ? .redone : .undone, context: context, group: newGroup)
        let range = log.range(at: revision)
        mapSelections(through: revision, owner: request.requester, landing: range.map(Selection.init))
        log.journal?(event)
        done()
        let reverted = um.groups[Int(newGroup)]
        return Change(revision: revision, session: request.requester, kind: kind, group: Int(newGroup),
                      actionName: um.name(reverted.name), operation: m.inverse, time: request.time, range: range,
                      skipped: skipped, reverts: RevertedGroup(session: context, group: Int(reverted.id)),
                      notReverted: m.lost)
    }
}

// MARK: - Change counts

extension Document {
    /// Applies a change-count step, as UIDocument.updateChangeCount, to the document's count:
    /// done and redone count up, undone counts down, cleared (after a save) resets every
    /// scope's count to zero.
    public func updateChangeCount(_ kind: DocumentChangeKind) {
        countChange(kind, context: nil)
        log.journal?(.updateChangeCount(kind))
    }

    /// A step of `group` (nil: a change with no group, which always counts): a discardable
    /// group's steps count nowhere (NSUndoManager's setActionIsDiscardable: a change that
    /// needs no save).
    func countChange(_ kind: DocumentChangeKind, context: SessionID?, group: Int32? = nil) {
        let discardable = group.map { undoManager.groups[Int($0)].flags & UndoGroup.discardable != 0 } ?? false
        changeCounts.apply(kind, context: context, discardable: discardable)
    }

    /// A group that already counted was marked discardable (its +1 taken back, as an undo
    /// would) or no longer is (counted again, as a redo would).
    func recountDiscardable(_ discardable: Bool, context: SessionID?) {
        if discardable {
            changeCounts.apply(.undone, context: context)
            changeCounts.apply(.redone, context: context, discardable: true)
        } else {
            changeCounts.apply(.undone, context: context, discardable: true)
            changeCounts.apply(.redone, context: context)
        }
    }

    /// UIDocument's count for the document.
    public var changeCount: Int { changeCounts.document.count }

    /// UIDocument's count for a scope: the document's, or one session's own context's.
    public func changeCount(_ scope: UndoScope) -> Int { changeCounts.count(scope) }

    public var hasUnsavedChanges: Bool { changeCount != 0 }
}
