// MARK: - Mapping

/// The history algebra. A group's inverse is valid at one revision; everything logged
/// after that revision and not part of its own context's stack discipline is "foreign" and
/// maps it. See docs/undo-rules.md.
extension UndoManager {
    /// Operations built from valid pieces cannot fail; a failure is a bug in the history.
    @inline(__always)
    static func must<T>(_ body: () throws(OperationError) -> T) -> T {
        do { return try body() } catch { preconditionFailure("undo history corrupt: \(error)") }
    }

    /// The inverse of a group whose changes are contiguous in the log.
    func plainInverse(_ g: Int32) -> MappedInverse {
        let group = groups[Int(g)]
        var inverse = log.inverse(at: Int(group.last))
        var units = log.units(at: Int(group.last)).inverted
        var r = Int(group.last) - 1
        while r >= Int(group.first) {
            let next = log.inverse(at: r)
            units = OperationUnits.compose(inverse, units, next, log.units(at: r).inverted, deleted: false)
            inverse = Self.must { () throws(OperationError) in try inverse.compose(next) }
            r -= 1
        }
        return MappedInverse(inverse: inverse, validAt: Int(group.last), below: nil, inserted: units.inserted)
    }

    /// The group's inverse mapped through every logged change up to `revision`.
    func upToDate(_ g: Int32, through revision: Int) -> MappedInverse {
        var m = mapped[g] ?? plainInverse(g)
        if m.validAt < revision {
            for r in (m.validAt + 1)...revision { Self.map(&m, through: log.operation(at: r), units: log.units(at: r)) }
            m.validAt = revision
        }
        return m
    }

    /// Maps the inverse through a change not its own, whose units are `fu`.
    static func map(_ m: inout MappedInverse, through foreign: TextOperation, units fu: OperationUnits) {
        let (inverse, transformed) = must { () throws(OperationError) in try TextOperation.transform(m.inverse, foreign) }
        var before = transformed
        // A transform only ever drops deletions (text the foreign change deleted first) and
        // never inserts less: the units dropped are the group's effect others took away.
        let dropped = deletedUnits(m.inverse) - deletedUnits(inverse)
        m.lost += dropped
        var beforeUnits = fu
        if dropped > 0 {
            let (overlap, bPrime) = OperationUnits.transform(m.inverse, foreign, fu)
            beforeUnits = bPrime
            for run in overlap.runs where run.first != 0 { m.lostUnits.append(run) }
        }
        m.inverse = inverse
        if !m.lostUnits.isEmpty {
            regain(&m, through: foreign, units: fu, before: &before, beforeUnits: &beforeUnits)
        }
        if let below = m.below {
            m.belowUnits = OperationUnits.compose(below, m.belowUnits ?? .unknown(below), before, beforeUnits)
            m.below = must { () throws(OperationError) in try below.compose(before) }
        } else {
            m.below = before
            m.belowUnits = beforeUnits
        }
    }

    /// Units the group lost that `foreign` put back (an undo or redo restoring them) are the
    /// group's again: its inverse deletes them once more, and `before` (the foreign change as
    /// if the group were undone) no longer puts them in.
    static func regain(_ m: inout MappedInverse, through foreign: TextOperation, units fu: OperationUnits,
                       before: inout TextOperation, beforeUnits: inout OperationUnits) {
        let lost = IdentitySet(m.lostUnits)
        guard !lost.isEmpty else { return }
        var builder = OperationBuilder()
        var back = UnitRuns()
        OperationUnits.forEachInsertedRun(foreign, fu) { position, run in
            for identities in lost.overlaps(run.first..<run.first + Int64(run.count)) {
                builder.retain(position + Int(identities.lowerBound - run.first) - builder.baseLength)
                builder.delete(identities.count)
                back.append(count: identities.count, first: identities.lowerBound)
            }
        }
        guard !back.isEmpty else { return }
        m.lostUnits = IdentitySet(back).removing(from: m.lostUnits)
        let takeOut = builder.build(length: foreign.targetLength)
        let (inverseAfter, takeOutAfter) = must { () throws(OperationError) in try TextOperation.transform(m.inverse, takeOut) }
        m.inverse = must { () throws(OperationError) in try takeOut.compose(inverseAfter) }
        // Units carried over from an earlier entry (`carried`) were never counted as lost here.
        m.lost = max(0, m.lost - back.count)
        let takeOutUnits = OperationUnits(inserted: UnitRuns(), deleted: back)
        beforeUnits = OperationUnits.compose(before, beforeUnits, takeOutAfter, takeOutUnits)
        before = must { () throws(OperationError) in try before.compose(takeOutAfter) }
    }

    static func deletedUnits(_ op: TextOperation) -> Int {
        var units = 0
        op.forEachSplice { units += $0.deleted }
        return units
    }

    // MARK: undo and redo

    /// Picks the context to undo (or redo) in `scope`, closing a level-1 open group first.
    func target(_ scope: UndoScope, redo: Bool, closeOpen: Bool) throws(DocumentError) -> Int {
        var c: Int?
        switch scope {
        case .session(let s): c = contextIndex[s]
        case .document:
            c = latestContext(redo: redo)
        }
        guard let c else { throw redo ? .nothingToRedo : .nothingToUndo }
        // A redo would land above the open group, which later changes must still join:
        // refused, as NSUndoManager raises on redo inside an open group.
        if redo, contexts[c].groupingLevel > 0, contexts[c].openGroup >= 0 {
            throw .groupOpen(level: contexts[c].groupingLevel)
        }
        if !redo, contexts[c].groupingLevel > 0 {
            guard closeOpen else {
                if contexts[c].openGroup >= 0 { try splitNestedTail(context: c) }
                return try nonEmpty(c, redo: redo)
            }
            guard contexts[c].groupingLevel == 1 else { throw .groupOpen(level: contexts[c].groupingLevel) }
            closeLevel(c)
        }
        return try nonEmpty(c, redo: redo)
    }

    /// The context and group of a selective undo of group `id` by `session`: refused before
    /// anything changes unless the group is on the session's own undo stack; then, as an
    /// undo, a level-1 open group is closed first (deeper nesting is `groupOpen`).
    func selectiveTarget(id: Int, session: SessionID?) throws(DocumentError) -> (context: Int, group: Int32) {
        guard let (c, g, onRedo) = locate(id: id) else { throw .groupNotFound(id: id) }
        guard contexts[c].session == session else { throw .notYourGroup(id: id) }
        guard !onRedo else { throw .groupAlreadyUndone(id: id) }
        if contexts[c].groupingLevel > 0 {
            guard contexts[c].groupingLevel == 1 else { throw .groupOpen(level: contexts[c].groupingLevel) }
            closeLevel(c)
        }
        return (c, g)
    }

    private func nonEmpty(_ c: Int, redo: Bool) throws(DocumentError) -> Int {
        if redo ? contexts[c].redo.isEmpty : contexts[c].undoTop == nil { throw redo ? .nothingToRedo : .nothingToUndo }
        return c
    }

    /// The operation undoing (redoing) context c's top group, on the current text; with
    /// `selected`, that group of the undo stack instead (selective undo): its inverse mapped
    /// through everything after it, its own context's later groups included.
    func prepare(context c: Int, redo: Bool, selected: Int32? = nil) throws(DocumentError) -> (group: Int32, mapped: MappedInverse) {
        if let selected { return (selected, upToDate(selected, through: log.revision)) }
        guard let g = redo ? contexts[c].redo.last : contexts[c].undoTop else { throw redo ? .nothingToRedo : .nothingToUndo }
        // Once a nested group's undo dropped it, the open group below is never undone.
        if g == contexts[c].openGroup { throw .nothingToUndo }
        return (g, upToDate(g, through: log.revision))
    }

    /// The group the next undo (redo) of context c reverts: the top one, unless others already
    /// erased its whole effect; then, as the undo would, the one below it, mapped as the pop of
    /// the erased one hands it down. Reads only: nothing is popped or cached.
    func offered(context c: Int, redo: Bool) -> Int32? {
        let stack = redo ? contexts[c].redo[...] : contexts[c].undo[contexts[c].undoBottom...]
        guard var g = stack.last else { return nil }
        // Too much to map to tell whether others erased it: offered, and its undo says why it
        // cannot be done (`undoTooLarge`).
        let group = groups[Int(g)]
        let cachedAt = offeredCache[g].flatMap { e in
            e.first == group.first && e.last == group.last && e.mappedAt == mapped[g]?.validAt ? e.inverse.validAt : nil
        }
        if mappingWork(g, cachedAt: cachedAt) > Document.maxRebaseWork { return g }
        let text = currentText()
        var m = cachedUpToDate(g)
        var below = stack.count - 1
        while Self.changesNothing(m.inverse, in: text) {
            below -= 1
            guard below >= 0 else { return nil }
            let h = stack[stack.startIndex + below]
            var hm = upToDate(h, through: Int(groups[Int(g)].first) - 1)
            if let b = m.below { Self.map(&hm, through: b, units: m.belowUnits ?? .unknown(b)) }
            hm.validAt = log.revision
            (g, m) = (h, hm)
        }
        return g
    }

    /// `upToDate(g, through: log.revision)`, carried on from the last time it was asked for.
    private func cachedUpToDate(_ g: Int32) -> MappedInverse {
        let group = groups[Int(g)]
        let mappedAt = mapped[g]?.validAt
        var m: MappedInverse
        if let entry = offeredCache[g], entry.first == group.first, entry.last == group.last, entry.mappedAt == mappedAt {
            m = entry.inverse
            if m.validAt < log.revision {
                for r in (m.validAt + 1)...log.revision { Self.map(&m, through: log.operation(at: r), units: log.units(at: r)) }
                m.validAt = log.revision
            }
        } else {
            m = upToDate(g, through: log.revision)
        }
        // Entries of groups no longer on top linger until the cache outgrows the contexts.
        if offeredCache.count > 2 * contexts.count + 16 { offeredCache.removeAll(keepingCapacity: true) }
        offeredCache[g] = OfferedEntry(first: group.first, last: group.last, mappedAt: mappedAt, inverse: m)
        return m
    }

    /// Whether applying `op` to `text` would leave it as it is (what `Document.commit` refuses
    /// to log).
    static func changesNothing(_ op: TextOperation, in text: Rope) -> Bool {
        var same = true
        op.forEachSplice { s in
            guard same else { return }
            same = s.inserted.utf16.count == s.deleted && text.substring(s.position..<s.position + s.deleted) == s.inserted
        }
        return same
    }

    /// Pops a group whose mapped inverse changes nothing any more.
    func discard(context c: Int, group g: Int32, mapped m: MappedInverse, redo: Bool) {
        pop(context: c, group: g, mapped: m, revision: log.revision, redo: redo)
    }

    private func pop(context c: Int, group g: Int32, mapped m: MappedInverse, revision: Int, redo: Bool) {
        let popped = groups[Int(g)]
        kill(g)
        contexts[c].typing = nil
        if contexts[c].openGroup == g { contexts[c].openGroup = -1 }
        if !redo, contexts[c].undoTop != g {
            // A selective undo takes a group from inside the stack: the groups around it keep
            // their inverses, which map through its undo as through any later change.
            if let i = contexts[c].undo.lastIndex(of: g), i >= contexts[c].undoBottom { contexts[c].undo.remove(at: i) }
            liveUndoCount -= 1
            return
        }
        if redo { contexts[c].redo.removeLast() } else { contexts[c].undo.removeLast(); liveUndoCount -= 1 }
        let below = redo ? contexts[c].redo.last : contexts[c].undoTop
        if let h = below {
            var hm = upToDate(h, through: Int(popped.first) - 1)
            if let b = m.below { Self.map(&hm, through: b, units: m.belowUnits ?? .unknown(b)) }
            hm.validAt = revision
            mapped[h] = hm
        }
    }

    /// Drops every group with a change at or before `revision` (trimLog), oldest first.
    func dropGroups(through revision: Int) {
        for c in contexts.indices {
            while let bottom = contexts[c].undo.count > contexts[c].undoBottom ? contexts[c].undo[contexts[c].undoBottom] : nil,
                  groups[Int(bottom)].first <= revision {
                dropBottom(c)
            }
            var keep = 0
            while keep < contexts[c].redo.count, groups[Int(contexts[c].redo[keep])].first <= revision { keep += 1 }
            for g in contexts[c].redo[..<keep] { kill(g) }
            contexts[c].redo.removeFirst(keep)
            if contexts[c].openGroup >= 0 && !groups[Int(contexts[c].openGroup)].isLive { contexts[c].openGroup = -1 }
        }
    }

    /// After the document logged the undo (redo) of `g` at `revision`: pops g, brings the
    /// group below it up to date, and pushes the opposite entry (group id `newGroup`).
    func finish(context c: Int, group g: Int32, mapped m: MappedInverse, revision: Int, redo: Bool, newGroup: Int32) {
        let popped = groups[Int(g)]
        pop(context: c, group: g, mapped: m, revision: revision, redo: redo)
        precondition(Int(newGroup) == groups.count)
        groups.append(UndoGroup(context: Int32(c), first: Int32(revision), last: Int32(revision),
                                name: popped.name, flags: UndoGroup.live | (popped.flags & UndoGroup.discardable), id: popped.id))
        if redo {
            contexts[c].undo.append(newGroup)
            liveUndoCount += 1
            enforceLevels(c)
        } else {
            contexts[c].redo.append(newGroup)
        }
        carry(from: m, to: newGroup)
    }

    /// The units the popped entry could not take out go with the group to its new entry, and
    /// the ones it carried come due: those back in the text are taken out by the new entry's
    /// inverse, the others wait in its `lostUnits`.
    private func carry(from m: MappedInverse, to g: Int32) {
        guard !m.lostUnits.isEmpty || !m.carried.isEmpty, groups[Int(g)].isLive else { return }
        var n = plainInverse(g)
        n.carried = m.lostUnits
        var builder = OperationBuilder()
        var present = UnitRuns()
        for (position, identity) in unitPositions(m.carried) {
            builder.retain(position - builder.baseLength)
            builder.delete(1)
            present.append(count: 1, first: identity)
        }
        for run in IdentitySet(present).removing(from: m.carried).runs where run.first != 0 { n.lostUnits.append(run) }
        if !present.isEmpty {
            let takeOut = builder.build(length: n.inverse.baseLength)
            let (inverseAfter, takeOutAfter) = Self.must { () throws(OperationError) in try TextOperation.transform(n.inverse, takeOut) }
            n.inverse = Self.must { () throws(OperationError) in try takeOut.compose(inverseAfter) }
            // As if the group were undone, the units come out too: the group below, once this
            // one is popped, maps through that as through any foreign change.
            n.below = takeOutAfter
            n.belowUnits = OperationUnits(inserted: UnitRuns(), deleted: present)
        }
        mapped[g] = n
    }
}

// MARK: - Mapping work

/// The work an undo or redo asks for: mapping a group's inverse through every change after
/// the last time it was mapped walks each of them with the inverse, so an old group of many
/// splices under thousands of later keystrokes costs their product. Bounded as a stale edit
/// is (`Document.maxRebaseWork`): over it, the undo is refused (`undoTooLarge`) rather than
/// hold the document for seconds, and the menus do not map it to decide what they offer.
extension UndoManager {
    /// Steps mapping group `g`'s inverse up to the log's revision takes: (its splices + 1)
    /// for each later change, plus those changes' own splices, from the newer of `mapped`'s
    /// entry and `cachedAt` (a read-only cache's revision). O(1).
    func mappingWork(_ g: Int32, cachedAt: Int? = nil) -> Int {
        mappingCost(g, cachedAt: cachedAt).work
    }

    /// `mappingWork`, and the number of later changes it walks.
    private func mappingCost(_ g: Int32, cachedAt: Int? = nil) -> (work: Int, changes: Int) {
        let group = groups[Int(g)]
        let first = log.firstAvailableRevision - 1
        let from = max(mapped[g]?.validAt ?? Int(group.last), cachedAt ?? -1, first)
        let changes = log.revision - from
        guard changes > 0 else { return (0, 0) }
        let splices = mapped[g]?.inverse.spliceCount
            ?? (log.spliceCount(since: max(Int(group.first) - 1, first)) - log.spliceCount(since: max(Int(group.last), first)))
        let (product, overflow) = (splices + 1).multipliedReportingOverflow(by: changes)
        return (overflow ? Int.max : product + log.spliceCount(since: from), changes)
    }

    /// `undoTooLarge` for group `g` when mapping it is over the budget.
    func checkMappingWork(_ g: Int32) throws(DocumentError) {
        let cost = mappingCost(g)
        guard cost.work > Document.maxRebaseWork else { return }
        throw .undoTooLarge(group: Int(groups[Int(g)].id), changes: cost.changes, limit: Document.maxRebaseWork)
    }
}
