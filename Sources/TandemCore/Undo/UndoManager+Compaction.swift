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
