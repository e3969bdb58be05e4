/// The change log in struct-of-arrays form, so a change costs a few dozen bytes and no heap
/// object of its own.
///
/// Each change is a list of splices in the positions of the text before it (as
/// `TextOperation.splices`); every splice keeps the text it deleted next to the text it
/// inserted in one shared UTF-16 buffer, so a logged change is its own inverse.
/// Revision r lives at index `r - trimmed - 1`.
///
/// Its state skips the dynamic exclusivity checks, as `Document`'s does.
final class ChangeLog {
    struct State: Codable, Sendable {
        /// Changes dropped by trimLog: revisions 1...trimmed.
        var trimmed = 0
        /// Text length after revision `trimmed`.
        var startLength = 0
        var spliceEnd: [UInt32] = []
        var textStart: [UInt32] = []
        /// Undo group id (>= 0) or, for a change not registered for undo, -(chain + 1).
        var owner: [Int32] = []
        var kind: [UInt8] = []
        var time: [Double] = []
        var lengthAfter: [Int32] = []
        var splicePosition: [Int32] = []
        var spliceDeleted: [Int32] = []
        var spliceInserted: [Int32] = []
        var text: [UInt16] = []
        /// Every undo and redo by revision, ascending: the session that asked for it (`""` for
        /// an anonymous request; its group's context may be another's) and the units of its
        /// group's effect it could not revert. Sparse: edits have no entry.
        var revertRevision: [Int32] = []
        var revertRequester: [String] = []
        var revertLost: [Int32] = []
    }

    @exclusivity(unchecked) var s = State()
    /// Receives every state-changing event, for persistence.
    var journal: ((DocumentEvent) -> Void)?

    init(startLength: Int) { s.startLength = startLength }

    var revision: Int { s.trimmed + s.kind.count }
    var firstAvailableRevision: Int { s.trimmed + 1 }

    @inline(__always) func index(_ revision: Int) -> Int { revision - s.trimmed - 1 }

    func lengthBefore(_ revision: Int) -> Int {
        let i = index(revision)
        return i == 0 ? s.startLength : Int(s.lengthAfter[i - 1])
    }

    func length(at revision: Int) -> Int {
        revision == s.trimmed ? s.startLength : Int(s.lengthAfter[index(revision)])
    }

    func owner(_ revision: Int) -> Int32 { s.owner[index(revision)] }
    func time(_ revision: Int) -> Double { s.time[index(revision)] }
    func kind(_ revision: Int) -> ChangeKind {
        switch s.kind[index(revision)] { case 1: .undo; case 2: .redo; default: .edit }
    }

    private func spliceRange(_ i: Int) -> Range<Int> {
        (i == 0 ? 0 : Int(s.spliceEnd[i - 1]))..<Int(s.spliceEnd[i])
    }

    /// Calls `body(position, deleted, inserted, textOffset)` for each splice of a revision;
    /// the deleted units start at textOffset, the inserted ones right after them.
    @inline(__always)
    func forEachSplice(_ revision: Int, _ body: (Int, Int, Int, Int) -> Void) {
        let i = index(revision)
        var offset = Int(s.textStart[i])
        for k in spliceRange(i) {
            let d = Int(s.spliceDeleted[k]), n = Int(s.spliceInserted[k])
            body(Int(s.splicePosition[k]), d, n, offset)
            offset += d + n
        }
    }

    private func string(_ offset: Int, _ count: Int) -> String {
        count == 0 ? "" : String(utf16Units: s.text[offset..<offset + count])
    }

    /// The change of `revision` as an operation on the text before it.
    func operation(at revision: Int) -> TextOperation {
        var splices: [TextOperation.Splice] = []
        forEachSplice(revision) { p, d, n, o in
            splices.append(.init(position: p, deleted: d, inserted: string(o + d, n)))
        }
        return TextOperation(normalized: splices, baseLength: lengthBefore(revision))
    }

    /// The splice of a revision that has exactly one (most do), read without slicing the
    /// arrays: a stale keystroke steps through dozens of these.
    @inline(__always)
    func singleSplice(at revision: Int) -> (position: Int, deleted: Int, inserted: Int)? {
        let i = index(revision)
        let start = i == 0 ? 0 : Int(s.spliceEnd[i - 1])
        guard Int(s.spliceEnd[i]) - start == 1 else { return nil }
        return (Int(s.splicePosition[start]), Int(s.spliceDeleted[start]), Int(s.spliceInserted[start]))
    }

    /// The change of `revision` without its text: all a stale edit needs to pass through it.
    func shape(at revision: Int) -> TextOperation.Shape {
        let r = spliceRange(index(revision))
        return TextOperation.Shape(positions: s.splicePosition[r], deleted: s.spliceDeleted[r],
                                   inserted: s.spliceInserted[r], baseLength: lengthBefore(revision))
    }

    /// The operation undoing `revision`, on the text right after it.
    func inverse(at revision: Int) -> TextOperation {
        var splices: [TextOperation.Splice] = []
        var delta = 0
        forEachSplice(revision) { p, d, n, o in
            splices.append(.init(position: p + delta, deleted: n, inserted: string(o, d)))
            delta += n - d
        }
        return TextOperation(normalized: splices, baseLength: length(at: revision))
    }

    /// Where `revision` landed in the text after it.
    func range(at revision: Int) -> Range<Int>? {
        var lower: Int?, upper = 0, delta = 0
        forEachSplice(revision) { p, d, n, _ in
            if lower == nil { lower = p + delta }
            upper = p + delta + n
            delta += n - d
        }
        return lower.map { $0..<upper }
    }

    // MARK: appending

    /// Logs `op`, applied to `rope` (the text before it), in one access to the arrays.
    func append(_ op: TextOperation, rope: Rope, owner: Int32, kind: ChangeKind, time: Double, lengthAfter: Int) {
        s.append(op, rope: rope, owner: owner, kind: kind, time: time, lengthAfter: lengthAfter)
    }

    // MARK: undo and redo records

    func recordRevert(at revision: Int, requester: SessionID?, lost: Int) {
        s.revertRevision.append(Int32(revision))
        s.revertRequester.append(requester ?? "")
        s.revertLost.append(Int32(clamping: lost))
    }

    /// Who asked for the undo (redo) at `revision`, and what of its group it could not revert;
    /// nil for an edit, or an undo logged before these were recorded.
    func revert(at revision: Int) -> (requester: SessionID?, lost: Int)? {
        var lo = 0, hi = s.revertRevision.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(s.revertRevision[mid]) < revision { lo = mid + 1 } else { hi = mid }
        }
        guard lo < s.revertRevision.count, Int(s.revertRevision[lo]) == revision else { return nil }
        let requester = s.revertRequester[lo]
        return (requester.isEmpty ? nil : requester, Int(s.revertLost[lo]))
    }

    // MARK: trimming

    /// Drops revisions up to `revision`.
    func trim(through revision: Int) {
        let n = min(revision, self.revision) - s.trimmed
        guard n > 0 else { return }
        let splices = Int(s.spliceEnd[n - 1])
        let textDropped = n < s.kind.count ? Int(s.textStart[n]) : s.text.count
        s.startLength = Int(s.lengthAfter[n - 1])
        s.trimmed += n
        s.spliceEnd.removeFirst(n)
        for i in s.spliceEnd.indices { s.spliceEnd[i] -= UInt32(splices) }
        s.textStart.removeFirst(n)
        for i in s.textStart.indices { s.textStart[i] -= UInt32(textDropped) }
        s.owner.removeFirst(n)
        s.kind.removeFirst(n)
        s.time.removeFirst(n)
        s.lengthAfter.removeFirst(n)
        s.splicePosition.removeFirst(splices)
        s.spliceDeleted.removeFirst(splices)
        s.spliceInserted.removeFirst(splices)
        s.text.removeFirst(textDropped)
        let reverts = s.revertRevision.prefix { Int($0) <= s.trimmed }.count
        if reverts > 0 {
            s.revertRevision.removeFirst(reverts)
            s.revertRequester.removeFirst(reverts)
            s.revertLost.removeFirst(reverts)
        }
    }

    /// Bytes allocated by the log's arrays.
    var allocatedBytes: Int {
        s.spliceEnd.capacity * 4 + s.textStart.capacity * 4 + s.owner.capacity * 4 + s.kind.capacity
            + s.time.capacity * 8 + s.lengthAfter.capacity * 4 + s.splicePosition.capacity * 4
            + s.spliceDeleted.capacity * 4 + s.spliceInserted.capacity * 4 + s.text.capacity * 2
            + s.revertRevision.capacity * 24
    }
}

extension ChangeLog.State {
    mutating func append(_ op: TextOperation, rope: Rope, owner: Int32, kind: ChangeKind, time: Double, lengthAfter: Int) {
        textStart.append(UInt32(text.count))
        op.forEachSplice { splice in
            splicePosition.append(Int32(truncatingIfNeeded: splice.position))
            spliceDeleted.append(Int32(truncatingIfNeeded: splice.deleted))
            let before = text.count
            if splice.deleted > 0 {
                text.append(contentsOf: rope.utf16Units(splice.position..<splice.position + splice.deleted))
            }
            let deletedEnd = text.count
            text.append(contentsOf: splice.inserted.utf16)
            _ = before
            spliceInserted.append(Int32(truncatingIfNeeded: text.count - deletedEnd))
        }
        spliceEnd.append(UInt32(splicePosition.count))
        self.owner.append(owner)
        self.kind.append(kind == .edit ? 0 : kind == .undo ? 1 : 2)
        self.time.append(time)
        self.lengthAfter.append(Int32(truncatingIfNeeded: lengthAfter))
    }
}

extension ChangeLog.State {
    private enum CodingKeys: String, CodingKey {
        case trimmed, startLength, spliceEnd, textStart, owner, kind, time, lengthAfter
        case splicePosition, spliceDeleted, spliceInserted, text
        case revertRevision, revertRequester, revertLost
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        trimmed = try c.decode(Int.self, forKey: .trimmed)
        startLength = try c.decode(Int.self, forKey: .startLength)
        spliceEnd = try PackedCoding.decode(UInt32.self, c, .spliceEnd)
        textStart = try PackedCoding.decode(UInt32.self, c, .textStart)
        owner = try PackedCoding.decode(Int32.self, c, .owner)
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
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(trimmed, forKey: .trimmed)
        try c.encode(startLength, forKey: .startLength)
        try c.encode(PackedCoding.encode(spliceEnd), forKey: .spliceEnd)
        try c.encode(PackedCoding.encode(textStart), forKey: .textStart)
        try c.encode(PackedCoding.encode(owner), forKey: .owner)
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
    }
}
