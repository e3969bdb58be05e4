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
        /// The undo group of each change, `ChangeLog.noGroup` for one not registered for undo.
        var group: [Int32] = []
        /// The undo context (index into `UndoManager.contexts`) of each change's session: for
        /// a change in a group, the group's context.
        var context: [Int32] = []
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
        /// Each change's units (`UnitRuns`): entries `unitEnd[i - 1] ..< unitEnd[i]` of
        /// `unitRuns` (from 0 for the first), each a run packed in 8 bytes (`packUnitRun`):
        /// the runs it inserted, then the runs it deleted.
        var unitEnd: [UInt32] = []
        var unitRuns: [Int64] = []
    }

    /// The group of a change not registered for undo.
    static let noGroup: Int32 = -1

    @exclusivity(unchecked) var state = State()
    /// Receives every state-changing event, for persistence.
    var journal: ((DocumentEvent) -> Void)?

    init(startLength: Int) { state.startLength = startLength }

    var revision: Int { state.trimmed + state.kind.count }
    var firstAvailableRevision: Int { state.trimmed + 1 }

    @inline(__always) func index(_ revision: Int) -> Int { revision - state.trimmed - 1 }

    func lengthBefore(_ revision: Int) -> Int {
        let i = index(revision)
        return i == 0 ? state.startLength : Int(state.lengthAfter[i - 1])
    }

    func length(at revision: Int) -> Int {
        revision == state.trimmed ? state.startLength : Int(state.lengthAfter[index(revision)])
    }

    func group(_ revision: Int) -> Int32 { state.group[index(revision)] }
    func context(_ revision: Int) -> Int32 { state.context[index(revision)] }
    func time(_ revision: Int) -> Double { state.time[index(revision)] }
    func kind(_ revision: Int) -> ChangeKind {
        switch state.kind[index(revision)] { case 1: .undo; case 2: .redo; default: .edit }
    }

    /// Splices of the changes after `revision` (at least `trimmed`).
    func spliceCount(since revision: Int) -> Int {
        let i = index(revision + 1)
        guard i < state.spliceEnd.count else { return 0 }
        return Int(state.spliceEnd.last!) - (i == 0 ? 0 : Int(state.spliceEnd[i - 1]))
    }

    /// UTF-16 units (deleted and inserted) of the changes after `revision` (at least `trimmed`).
    func unitCount(since revision: Int) -> Int {
        let i = index(revision + 1)
        guard i < state.textStart.count else { return 0 }
        return state.text.count - Int(state.textStart[i])
    }

    private func spliceRange(_ i: Int) -> Range<Int> {
        (i == 0 ? 0 : Int(state.spliceEnd[i - 1]))..<Int(state.spliceEnd[i])
    }

    /// Calls `body(position, deleted, inserted, textOffset)` for each splice of a revision;
    /// the deleted units start at textOffset, the inserted ones right after them.
    @inline(__always)
    func forEachSplice(_ revision: Int, _ body: (Int, Int, Int, Int) -> Void) {
        let i = index(revision)
        var offset = Int(state.textStart[i])
        for k in spliceRange(i) {
            let d = Int(state.spliceDeleted[k]), n = Int(state.spliceInserted[k])
            body(Int(state.splicePosition[k]), d, n, offset)
            offset += d + n
        }
    }

    private func string(_ offset: Int, _ count: Int) -> String {
        count == 0 ? "" : String(utf16Units: state.text[offset..<offset + count])
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
        let start = i == 0 ? 0 : Int(state.spliceEnd[i - 1])
        guard Int(state.spliceEnd[i]) - start == 1 else { return nil }
        return (Int(state.splicePosition[start]), Int(state.spliceDeleted[start]), Int(state.spliceInserted[start]))
    }

    /// The change of `revision` without its text: all a stale edit needs to pass through it.
    func shape(at revision: Int) -> TextOperation.Shape {
        let r = spliceRange(index(revision))
        return TextOperation.Shape(positions: state.splicePosition[r], deleted: state.spliceDeleted[r],
                                   inserted: state.spliceInserted[r], baseLength: lengthBefore(revision))
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

    /// The units `revision` inserted and deleted.
    func units(at revision: Int) -> OperationUnits {
        let i = index(revision)
        var units = OperationUnits()
        for k in (i == 0 ? 0 : Int(state.unitEnd[i - 1]))..<Int(state.unitEnd[i]) {
            let (run, deleted) = ChangeLog.unpackUnitRun(state.unitRuns[k])
            if deleted { units.deleted.append(run) } else { units.inserted.append(run) }
        }
        return units
    }

    /// A run as one Int64: its first identity (below `UnitRuns.maxIdentity`, 2^42) shifted
    /// past its count (20 bits) and a bit saying whether the change deleted it or inserted it.
    static func packUnitRuns(_ run: UnitRuns.Run, deleted: Bool, into column: inout [Int64]) {
        var left = Int64(run.count), first = run.first
        while left > 0 {
            let n = min(left, maxPackedCount)
            column.append(first << 21 | n << 1 | (deleted ? 1 : 0))
            left -= n
            if first != 0 { first += n }
        }
    }

    static let maxPackedCount: Int64 = (1 << 20) - 1

    static func unpackUnitRun(_ packed: Int64) -> (run: UnitRuns.Run, deleted: Bool) {
        (UnitRuns.Run(count: Int32((packed >> 1) & maxPackedCount), first: packed >> 21), packed & 1 == 1)
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
    /// The units of the change just appended come next: `appendUnitRun` for each run it inserted
    /// and deleted, then `closeUnits`.
    func append(_ op: TextOperation, rope: Rope, group: Int32, context: Int32, kind: ChangeKind, time: Double, lengthAfter: Int) {
        state.append(op, rope: rope, group: group, context: context, kind: kind, time: time, lengthAfter: lengthAfter)
    }

    // MARK: undo and redo records

    func recordRevert(at revision: Int, requester: SessionID?, lost: Int) {
        state.revertRevision.append(Int32(revision))
        state.revertRequester.append(requester ?? "")
        state.revertLost.append(Int32(clamping: lost))
    }

    /// Who asked for the undo (redo) at `revision`, and what of its group it could not revert;
    /// nil for an edit, or an undo logged before these were recorded.
    func revert(at revision: Int) -> (requester: SessionID?, lost: Int)? {
        var lo = 0, hi = state.revertRevision.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(state.revertRevision[mid]) < revision { lo = mid + 1 } else { hi = mid }
        }
        guard lo < state.revertRevision.count, Int(state.revertRevision[lo]) == revision else { return nil }
        let requester = state.revertRequester[lo]
        return (requester.isEmpty ? nil : requester, Int(state.revertLost[lo]))
    }

    // MARK: trimming

    /// Drops revisions up to `revision`.
    func trim(through revision: Int) {
        let n = min(revision, self.revision) - state.trimmed
        guard n > 0 else { return }
        let splices = Int(state.spliceEnd[n - 1])
        let textDropped = n < state.kind.count ? Int(state.textStart[n]) : state.text.count
        state.startLength = Int(state.lengthAfter[n - 1])
        state.trimmed += n
        state.spliceEnd.removeFirst(n)
        for i in state.spliceEnd.indices { state.spliceEnd[i] -= UInt32(splices) }
        state.textStart.removeFirst(n)
        for i in state.textStart.indices { state.textStart[i] -= UInt32(textDropped) }
        state.group.removeFirst(n)
        state.context.removeFirst(n)
        state.kind.removeFirst(n)
        state.time.removeFirst(n)
        state.lengthAfter.removeFirst(n)
        state.splicePosition.removeFirst(splices)
        state.spliceDeleted.removeFirst(splices)
        state.spliceInserted.removeFirst(splices)
        state.text.removeFirst(textDropped)
        let runs = Int(state.unitEnd[n - 1])
        state.unitEnd.removeFirst(n)
        for i in state.unitEnd.indices { state.unitEnd[i] -= UInt32(runs) }
        state.unitRuns.removeFirst(runs)
        let reverts = state.revertRevision.prefix { Int($0) <= state.trimmed }.count
        if reverts > 0 {
            state.revertRevision.removeFirst(reverts)
            state.revertRequester.removeFirst(reverts)
            state.revertLost.removeFirst(reverts)
        }
    }

    /// Bytes allocated by the log's arrays.
    var allocatedBytes: Int {
        state.spliceEnd.capacity * 4 + state.textStart.capacity * 4 + state.group.capacity * 4 + state.context.capacity * 4
            + state.kind.capacity
            + state.time.capacity * 8 + state.lengthAfter.capacity * 4 + state.splicePosition.capacity * 4
            + state.spliceDeleted.capacity * 4 + state.spliceInserted.capacity * 4 + state.text.capacity * 2
            + state.revertRevision.capacity * 24
            + state.unitEnd.capacity * 4 + state.unitRuns.capacity * 8
    }
}

extension ChangeLog.State {
    mutating func append(_ op: TextOperation, rope: Rope, group: Int32, context: Int32, kind: ChangeKind, time: Double, lengthAfter: Int) {
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
        self.group.append(group)
        self.context.append(context)
        self.kind.append(kind == .edit ? 0 : kind == .undo ? 1 : 2)
        self.time.append(time)
        self.lengthAfter.append(Int32(truncatingIfNeeded: lengthAfter))
    }
}

extension ChangeLog.State {
    mutating func appendUnitRun(_ run: UnitRuns.Run, deleted: Bool) {
        ChangeLog.packUnitRuns(run, deleted: deleted, into: &unitRuns)
    }

    mutating func closeUnits() { unitEnd.append(UInt32(unitRuns.count)) }

    /// Whether the unit column is there for every change and each change's runs count as
    /// many units as it inserted and deleted; `fillUnknownUnits` completes a log stored before
    /// units were kept.
    var unitsLineUp: Bool {
        let n = kind.count
        guard unitEnd.count == n else { return false }
        var start = 0, spliceStart = 0
        for i in 0..<n {
            let end = Int(unitEnd[i])
            guard start <= end, end <= unitRuns.count else { return false }
            var inserted = 0, deleted = 0
            for k in spliceStart..<Int(spliceEnd[i]) { inserted += Int(spliceInserted[k]); deleted += Int(spliceDeleted[k]) }
            for k in start..<end {
                let packed = unitRuns[k]
                let (run, isDeleted) = ChangeLog.unpackUnitRun(packed)
                guard packed >= 0, run.count > 0, run.first <= UnitRuns.maxIdentity else { return false }
                if isDeleted { deleted -= Int(run.count) } else { inserted -= Int(run.count) }
            }
            guard inserted == 0, deleted == 0 else { return false }
            start = end
            spliceStart = Int(spliceEnd[i])
        }
        return true
    }

    /// Units of unknown identity for every change of a log stored before units were kept.
    mutating func fillUnknownUnits() {
        unitEnd = []; unitRuns = []
        var spliceStart = 0
        for i in 0..<kind.count {
            var inserted = 0, deleted = 0
            for k in spliceStart..<Int(spliceEnd[i]) { inserted += Int(spliceInserted[k]); deleted += Int(spliceDeleted[k]) }
            if inserted > 0 { appendUnitRun(.init(count: Int32(clamping: inserted), first: 0), deleted: false) }
            if deleted > 0 { appendUnitRun(.init(count: Int32(clamping: deleted), first: 0), deleted: true) }
            closeUnits()
            spliceStart = Int(spliceEnd[i])
        }
    }
}
