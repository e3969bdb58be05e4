// MARK: - Snapshot coding

extension ChangeLog.State {
    private enum CodingKeys: String, CodingKey {
        case trimmed, startLength, spliceEnd, textStart, group, context, kind, time, lengthAfter
        case splicePosition, spliceDeleted, spliceInserted, text
        case revertRevision, revertRequester, revertLost
        case unitEnd, unitRuns
    }

    /// A snapshot written before `group` and `context` has an `owner` column instead, which
    /// only `DocumentSnapshot`'s decoder, holding the undo groups too, can split (`splitOwners`):
    /// the two are left empty here.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        trimmed = try c.decode(Int.self, forKey: .trimmed)
        startLength = try c.decode(Int.self, forKey: .startLength)
        spliceEnd = try PackedCoding.decode(UInt32.self, c, .spliceEnd)
        textStart = try PackedCoding.decode(UInt32.self, c, .textStart)
        if c.contains(.group) {
            group = try PackedCoding.decode(Int32.self, c, .group)
            context = try PackedCoding.decode(Int32.self, c, .context)
        }
        kind = try PackedCoding.decode(UInt8.self, c, .kind)
        time = try PackedCoding.decodeDoubles(c, .time)
        lengthAfter = try PackedCoding.decode(Int32.self, c, .lengthAfter)
        splicePosition = try PackedCoding.decode(Int32.self, c, .splicePosition)
        spliceDeleted = try PackedCoding.decode(Int32.self, c, .spliceDeleted)
        spliceInserted = try PackedCoding.decode(Int32.self, c, .spliceInserted)
        text = try PackedCoding.decode(UInt16.self, c, .text)
        // Absent from snapshots written before undo requesters were recorded.
        if c.contains(.revertRevision) {
            revertRevision = try PackedCoding.decode(Int32.self, c, .revertRevision)
            revertRequester = try c.decode([String].self, forKey: .revertRequester)
            revertLost = try PackedCoding.decode(Int32.self, c, .revertLost)
            // One requester and one count per undo record: the binary form relies on it.
            guard revertRequester.count == revertRevision.count else { throw PackedCoding.corrupt(c, .revertRequester) }
            guard revertLost.count == revertRevision.count else { throw PackedCoding.corrupt(c, .revertLost) }
        }
        // Absent from snapshots written before units were kept: `fillUnknownUnits` then.
        if c.contains(.unitEnd) {
            unitEnd = try PackedCoding.decode(UInt32.self, c, .unitEnd)
            unitRuns = try PackedCoding.decode(Int64.self, c, .unitRuns)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(trimmed, forKey: .trimmed)
        try c.encode(startLength, forKey: .startLength)
        try c.encode(PackedCoding.encode(spliceEnd), forKey: .spliceEnd)
        try c.encode(PackedCoding.encode(textStart), forKey: .textStart)
        try c.encode(PackedCoding.encode(group), forKey: .group)
        try c.encode(PackedCoding.encode(context), forKey: .context)
        try c.encode(PackedCoding.encode(kind), forKey: .kind)
        try c.encode(PackedCoding.encode(time), forKey: .time)
        try c.encode(PackedCoding.encode(lengthAfter), forKey: .lengthAfter)
        try c.encode(PackedCoding.encode(splicePosition), forKey: .splicePosition)
        try c.encode(PackedCoding.encode(spliceDeleted), forKey: .spliceDeleted)
        try c.encode(PackedCoding.encode(spliceInserted), forKey: .spliceInserted)
        try c.encode(PackedCoding.encode(text), forKey: .text)
        try c.encode(PackedCoding.encode(revertRevision), forKey: .revertRevision)
        try c.encode(revertRequester, forKey: .revertRequester)
        try c.encode(PackedCoding.encode(revertLost), forKey: .revertLost)
        try c.encode(PackedCoding.encode(unitEnd), forKey: .unitEnd)
        try c.encode(PackedCoding.encode(unitRuns), forKey: .unitRuns)
    }

    /// Fills `group` and `context` from `owner`, the one column older snapshots hold in their
    /// place (binary versions 1 and 2, and JSON written before them): a group id (>= 0), or for
    /// a change not registered for undo -(context + 1). A grouped change's context is its
    /// group's, read from `groups`; false when an owner names a group that is not there.
    mutating func splitOwners(_ owner: [Int32], groups: [UndoGroup]) -> Bool {
        group = []
        context = []
        group.reserveCapacity(owner.count)
        context.reserveCapacity(owner.count)
        for o in owner {
            if o >= 0 {
                guard Int(o) < groups.count else { return false }
                group.append(o)
                context.append(groups[Int(o)].context)
            } else {
                group.append(ChangeLog.noGroup)
                context.append(~o)  // -(o + 1), which cannot overflow
            }
        }
        return true
    }
}
