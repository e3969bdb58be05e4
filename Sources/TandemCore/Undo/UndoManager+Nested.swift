/// undoNestedGroup inside an open group. Nested groups join their open outer group as it
/// grows (one group, one inverse); only the boundary of the last closed nested group is
/// kept. undoNestedGroup is allowed only while nothing was registered since that group
/// closed, so its changes are exactly the open group's tail: the tail is split off as a
/// group of its own, right on top of the open one, and undone as any closed group.
extension UndoManager {
    /// Splits the open group's tail (the last closed nested group) off context c's open
    /// group; `groupOpen` when the open group ends in changes of its own instead.
    func splitNestedTail(context c: Int) throws(DocumentError) {
        let g = contexts[c].openGroup
        let group = groups[Int(g)]
        guard group.isLive, let s = contexts[c].nestedTail.map(Int.init), s >= Int(group.first) else {
            throw .groupOpen(level: contexts[c].groupingLevel)
        }
        contexts[c].nestedTail = nil
        guard s > Int(group.first) else {
            // The nested group is all the open group holds: it is undone whole, and the
            // open level goes on empty.
            contexts[c].openGroup = -1
            return
        }
        var headLast = s - 1
        while log.group(headLast) != g { headLast -= 1 }
        let t = Int32(groups.count)
        groups.append(UndoGroup(context: Int32(c), first: Int32(s), last: group.last, name: group.name, flags: group.flags))
        for r in s...Int(group.last) where log.group(r) == g { log.state.group[log.index(r)] = t }
        mapped[t] = replayedInverse(of: t, from: s, through: log.revision)
        mapped[g] = replayedInverse(of: g, from: Int(group.first), through: headLast)
        groups[Int(g)].last = Int32(headLast)
        contexts[c].undo.append(t)
        liveUndoCount += 1
    }

    /// Group g's inverse from its change at `from` on, built as register and append build
    /// it change by change: own changes composed in front, anyone else's mapped through.
    func replayedInverse(of g: Int32, from: Int, through: Int) -> MappedInverse {
        var m = MappedInverse(inverse: log.inverse(at: from), validAt: from, below: nil, inserted: log.units(at: from).deleted)
        guard from < through else { return m }
        for r in (from + 1)...through {
            if log.group(r) == g {
                let own = log.inverse(at: r)
                m.inserted = OperationUnits.compose(own, log.units(at: r).inverted, m.inverse, OperationUnits(inserted: m.inserted),
                                                    deleted: false).inserted
                m.inverse = Self.must { () throws(OperationError) in try own.compose(m.inverse) }
            } else {
                Self.map(&m, through: log.operation(at: r), units: log.units(at: r))
            }
            m.validAt = r
        }
        return m
    }
}
