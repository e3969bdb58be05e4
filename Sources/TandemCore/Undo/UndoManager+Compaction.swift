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

    /// Fewer dead groups than this are not worth a pass over the log and the stacks.
    static let compactionFloor: Int32 = 4096
}
