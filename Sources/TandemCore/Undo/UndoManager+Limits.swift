// MARK: - Levels

extension UndoManager {
    /// The document's cap on undo groups: every context's own, unless it set one (0 = unlimited).
    public var levelsOfUndo: Int {
        get { documentLevels }
        set { setLevelsOfUndo(newValue, scope: .document) }
    }

    public func levelsOfUndo(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: documentLevels
        case .session(let s): contextIndex[s].map { contexts[$0].levels } ?? 0
        }
    }

    /// The cap that applies to the scope's stack: a session's own when it set one, else the
    /// document's (what `enforceLevels` keeps), where `levelsOfUndo(_:)` is what it set.
    public func levelsInForce(_ scope: UndoScope) -> Int {
        switch scope {
        case .document: documentLevels
        case .session(let s):
            contextIndex[s].map { contexts[$0].levels > 0 ? contexts[$0].levels : documentLevels } ?? documentLevels
        }
    }

    /// Caps a scope's undo stack; the oldest groups beyond it are dropped at once.
    public func setLevelsOfUndo(_ levels: Int, scope: UndoScope) {
        let levels = max(0, levels)
        switch scope {
        case .document:
            documentLevels = levels
            for c in contexts.indices { enforceLevels(c) }
        case .session(let s):
            let c = context(for: s)
            contexts[c].levels = levels
            enforceLevels(c)
        }
        log.journal?(.setLevelsOfUndo(levels, scope: scope))
    }

    /// Each context keeps at most its own levelsOfUndo, or the document's when it set none:
    /// another session's typing never pushes out my groups.
    func enforceLevels(_ c: Int) {
        let cap = contexts[c].levels > 0 ? contexts[c].levels : documentLevels
        if cap > 0 {
            while contexts[c].undoCount > cap { dropBottom(c) }
        }
    }

    func dropBottom(_ c: Int) {
        let g = contexts[c].undo[contexts[c].undoBottom]
        kill(g)
        liveUndoCount -= 1
        if contexts[c].openGroup == g { contexts[c].openGroup = -1 }
        if contexts[c].typing?.group == g { contexts[c].typing = nil }
        contexts[c].undoBottom += 1
        if contexts[c].undoBottom > 64 && contexts[c].undoBottom * 2 > contexts[c].undo.count {
            contexts[c].undo.removeFirst(contexts[c].undoBottom)
            contexts[c].undoBottom = 0
        }
    }

    func kill(_ g: Int32) {
        groups[Int(g)].flags &= ~UndoGroup.live
        mapped[g] = nil
    }
}

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

// MARK: - Compaction

extension UndoManager {
    /// Renumbers the groups once the ones nothing refers to any more are most of them.
    ///
    /// A group's id is its index in `groups`: were every group ever made to stay there, a busy
    /// document's memory would grow per group for ever, and every snapshot would encode them
    /// all (see docs/performance.md).
    /// Groups are made in order, and the log, the stacks, open groups and mapped inverses
    /// only refer to recent ones, so once the log is trimmed everything below the lowest id
    /// still referred to is unreachable: it is dropped and the rest move down. Called by
    /// `Document.trimLog`, which the journal replays, so a replayed document renumbers at
    /// the same points and ends with the same ids. The action names go the same way.
    func compactGroups() {
        var lowest = Int32(groups.count)
        for context in contexts {
            for g in context.undo[context.undoBottom...] { lowest = min(lowest, g) }
            for g in context.redo { lowest = min(lowest, g) }
            if context.openGroup >= 0 { lowest = min(lowest, context.openGroup) }
        }
        for g in log.state.group where g != ChangeLog.noGroup { lowest = min(lowest, g) }
        guard lowest >= Self.compactionFloor, Int(lowest) * 2 >= groups.count else { return }

        groups.removeFirst(Int(lowest))
        for c in contexts.indices {
            contexts[c].undo.removeFirst(contexts[c].undoBottom)
            contexts[c].undoBottom = 0
            for i in contexts[c].undo.indices { contexts[c].undo[i] -= lowest }
            for i in contexts[c].redo.indices { contexts[c].redo[i] -= lowest }
            if contexts[c].openGroup >= 0 { contexts[c].openGroup -= lowest }
            // A typing run only ever extends the group on top of its stack, so one whose
            // group is gone could never coalesce again.
            if let run = contexts[c].typing {
                if run.group >= lowest { contexts[c].typing!.group = run.group - lowest } else { contexts[c].typing = nil }
            }
        }
        var moved: [Int32: MappedInverse] = [:]
        moved.reserveCapacity(mapped.count)
        for (g, m) in mapped where g >= lowest { moved[g - lowest] = m }
        mapped = moved
        for i in log.state.group.indices where log.state.group[i] != ChangeLog.noGroup { log.state.group[i] -= lowest }
        compactNames()
    }

    /// Action names are interned for the groups, and come from clients: a name that no
    /// remaining group or open group carries is dropped with them, or unique names would
    /// pile up for ever. "Typing" keeps index 0.
    func compactNames() {
        var used = [Bool](repeating: false, count: names.count)
        used[Int(Self.typingName)] = true
        for g in groups where g.name >= 0 { used[Int(g.name)] = true }
        for context in contexts where context.openName >= 0 { used[Int(context.openName)] = true }
        guard used.contains(false) else { return }
        var moved = [Int32](repeating: -1, count: names.count)
        var kept: [String] = []
        for (i, name) in names.enumerated() where used[i] {
            moved[i] = Int32(kept.count)
            kept.append(name)
        }
        names = kept
        nameIndex = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($0.element, Int32($0.offset)) })
        for i in groups.indices where groups[i].name >= 0 { groups[i].name = moved[Int(groups[i].name)] }
        for c in contexts.indices where contexts[c].openName >= 0 { contexts[c].openName = moved[Int(contexts[c].openName)] }
    }

    /// Drops the undo contexts nothing needs any more and renumbers the rest; returns
    /// whether it did.
    ///
    /// Every session that ever edited the document had its context here for ever: emptied
    /// when the session ended (removeAllActions(withTarget:)), never removed, so a document
    /// visited by thousands of sessions carried thousands of empty contexts in memory and
    /// in every snapshot, and a document-scope undo looked through all of them. A context
    /// goes once it is as a new one would be (so a session that comes back gets an equal
    /// one; its stacks are empty, so no live group is in it) and no logged change names it
    /// (the log keeps each change's context, which gives the change's session). Called with `compactGroups` from `Document.trimLog`, so a
    /// replayed journal renumbers alike.
    func compactContexts() -> Bool {
        var keep = [Bool](repeating: false, count: contexts.count)
        keep[0] = true
        for c in log.state.context { keep[Int(c)] = true }
        var dropped = 0
        for c in contexts.indices where !keep[c] {
            if contexts[c].isPristine { dropped += 1 } else { keep[c] = true }
        }
        guard dropped >= Self.contextCompactionFloor else { return false }
        var moved = [Int32](repeating: -1, count: contexts.count)
        var kept: [UndoContext] = []
        kept.reserveCapacity(contexts.count - dropped)
        for c in contexts.indices where keep[c] {
            moved[c] = Int32(kept.count)
            kept.append(contexts[c])
        }
        contexts = kept
        contextIndex = [:]
        for (c, context) in contexts.enumerated() { if let s = context.session { contextIndex[s] = c } }
        // A dead group that nothing refers to may still name a dropped context until
        // `compactGroups` reaches it; nothing reads it, and the anonymous one is valid.
        for i in groups.indices { groups[i].context = max(0, moved[Int(groups[i].context)]) }
        for i in log.state.context.indices { log.state.context[i] = moved[Int(log.state.context[i])] }
        return true
    }

    /// Fewer dead groups than this are not worth a pass over the log and the stacks.
    static let compactionFloor: Int32 = 4096
    /// Nor fewer dead contexts than this.
    static let contextCompactionFloor = 64
}

extension UndoContext {
    /// Nothing in it a new context would not have: no groups, none open, no settings.
    var isPristine: Bool {
        undo.count == undoBottom && redo.isEmpty && groupingLevel == 0 && openGroup < 0 && openName < 0 && !openNamedOutside
            && openDiscardable == nil && (nestedStarts ?? []).isEmpty && nestedTail == nil && levels == 0 && typing == nil
            && registrationDisabled == 0
    }
}
