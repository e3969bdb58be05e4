extension UndoManager {
    /// Renumbers the groups once the ones nothing refers to any more are most of them.
    ///
    /// A group's id is its index in `groups`, and every group ever made used to stay there:
    /// a busy document gained 20 bytes of memory per group for ever, and every snapshot
    /// re-encoded them all (400,000 groups after 20 s of bench-load, 7 MB a snapshot).
    /// Groups are made in order, and the log, the stacks, open groups and mapped inverses
    /// only refer to recent ones, so once the log is trimmed everything below the lowest id
    /// still referred to is unreachable: it is dropped and the rest move down. Called by
    /// `Document.trimLog`, which the journal replays, so a replayed document renumbers at
    /// the same points and ends with the same ids. The action names go the same way.
    func compactGroups() {
        var lowest = Int32(groups.count)
        for chain in chains {
            for g in chain.undo[chain.undoBottom...] { lowest = min(lowest, g) }
            for g in chain.redo { lowest = min(lowest, g) }
            if chain.openGroup >= 0 { lowest = min(lowest, chain.openGroup) }
        }
        for owner in log.s.owner where owner >= 0 { lowest = min(lowest, owner) }
        guard lowest >= Self.compactionFloor, Int(lowest) * 2 >= groups.count else { return }

        groups.removeFirst(Int(lowest))
        for c in chains.indices {
            chains[c].undo.removeFirst(chains[c].undoBottom)
            chains[c].undoBottom = 0
            for i in chains[c].undo.indices { chains[c].undo[i] -= lowest }
            for i in chains[c].redo.indices { chains[c].redo[i] -= lowest }
            if chains[c].openGroup >= 0 { chains[c].openGroup -= lowest }
            // A typing run only ever extends the group on top of its stack, so one whose
            // group is gone could never coalesce again.
            if let run = chains[c].typing {
                if run.group >= lowest { chains[c].typing!.group = run.group - lowest } else { chains[c].typing = nil }
            }
        }
        var moved: [Int32: MappedInverse] = [:]
        moved.reserveCapacity(mapped.count)
        for (g, m) in mapped where g >= lowest { moved[g - lowest] = m }
        mapped = moved
        for i in log.s.owner.indices where log.s.owner[i] >= 0 { log.s.owner[i] -= lowest }
        compactNames()
    }

    /// Action names are interned for the groups, and come from clients: a name that no
    /// remaining group or open group carries is dropped with them, or unique names would
    /// pile up for ever. "Typing" keeps index 0.
    func compactNames() {
        var used = [Bool](repeating: false, count: names.count)
        used[Int(Self.typingName)] = true
        for g in groups where g.name >= 0 { used[Int(g.name)] = true }
        for chain in chains where chain.openName >= 0 { used[Int(chain.openName)] = true }
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
        for c in chains.indices where chains[c].openName >= 0 { chains[c].openName = moved[Int(chains[c].openName)] }
    }

    /// Drops the undo contexts nothing needs any more and renumbers the rest; returns
    /// whether it did.
    ///
    /// Every session that ever edited the document had its context here for ever: emptied
    /// when the session ended (removeAllActions(withTarget:)), never removed, so a document
    /// visited by thousands of sessions carried thousands of empty contexts in memory and
    /// in every snapshot, and a document-scope undo looked through all of them. A context
    /// goes once it is as a new one would be (so a session that comes back gets an equal
    /// one; its stacks are empty, so no live group is in it) and no logged change names it:
    /// the log gives each change's session through its group's context, or its own for a
    /// change with no group. Called with `compactGroups` from `Document.trimLog`, so a
    /// replayed journal renumbers alike.
    func compactChains() -> Bool {
        var keep = [Bool](repeating: false, count: chains.count)
        keep[0] = true
        for owner in log.s.owner { keep[owner >= 0 ? Int(groups[Int(owner)].chain) : Int(-owner - 1)] = true }
        var dropped = 0
        for c in chains.indices where !keep[c] {
            if chains[c].isPristine { dropped += 1 } else { keep[c] = true }
        }
        guard dropped >= Self.chainCompactionFloor else { return false }
        var moved = [Int32](repeating: -1, count: chains.count)
        var kept: [UndoChain] = []
        kept.reserveCapacity(chains.count - dropped)
        for c in chains.indices where keep[c] {
            moved[c] = Int32(kept.count)
            kept.append(chains[c])
        }
        chains = kept
        chainIndex = [:]
        for (c, chain) in chains.enumerated() { if let s = chain.session { chainIndex[s] = c } }
        // A dead group that nothing refers to may still name a dropped context until
        // `compactGroups` reaches it; nothing reads it, and the anonymous one is valid.
        for i in groups.indices { groups[i].chain = max(0, moved[Int(groups[i].chain)]) }
        for i in log.s.owner.indices where log.s.owner[i] < 0 {
            log.s.owner[i] = -moved[Int(-log.s.owner[i] - 1)] - 1
        }
        return true
    }

    /// Fewer dead groups than this are not worth a pass over the log and the stacks.
    static let compactionFloor: Int32 = 4096
    /// Nor fewer dead contexts than this.
    static let chainCompactionFloor = 64
}

extension UndoChain {
    /// Nothing in it a new context would not have: no groups, none open, no settings.
    var isPristine: Bool {
        undo.count == undoBottom && redo.isEmpty && groupingLevel == 0 && openGroup < 0 && openName < 0 && !openNamedOutside
            && openDiscardable == nil && (nestedStarts ?? []).isEmpty && nestedTail == nil && levels == 0 && typing == nil
    }
}
