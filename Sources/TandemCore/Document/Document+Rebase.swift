/// Bringing an operation made on an older revision up to date (a stale edit's transform).
///
/// The work is bounded (`maxRebaseWork`), and it can run without the document's lock: a
/// `RebaseSource` is the log and the text as they were, both copy-on-write values, so a
/// large stale edit is transformed on another thread while the document goes on changing.
extension Document {
    /// The log and the text at one revision, safe to keep and read after the lock is
    /// released (taking one copies nothing until the document next changes).
    public struct RebaseSource: Sendable {
        let log: ChangeLog.State
        let rope: Rope

        /// The revision it describes.
        public var revision: Int { log.trimmed + log.kind.count }

        /// The text's length at an older revision still in the log.
        public func length(atRevision r: Int) throws(DocumentError) -> Int {
            guard r >= log.trimmed else { throw .revisionTrimmed(base: r, firstAvailable: log.trimmed + 1) }
            guard r <= revision else { throw .revisionInFuture(base: r, current: revision) }
            return r == log.trimmed ? log.startLength : Int(log.lengthAfter[r - log.trimmed - 1])
        }
    }

    /// Most work one rebase may ask for, in splice steps (see `rebaseWork`), so no single
    /// request holds a thread for long (see docs/performance.md).
    public static let maxRebaseWork = 2_000_000

    public func rebaseSource() -> RebaseSource { RebaseSource(log: log.state, rope: rope) }

    /// The steps rebasing `op`, made at `base`, onto `source` takes: each change since `base`
    /// is walked together with the operation, so it is the operation's splices times the
    /// changes, plus the changes' own splices.
    public static func rebaseWork(_ op: TextOperation, base: Int, source: RebaseSource) -> Int {
        let changes = source.revision - base
        guard changes > 0 else { return 0 }
        let first = base - source.log.trimmed   // index of the change after base
        let spliceStart = first <= 0 ? 0 : Int(source.log.spliceEnd[first - 1])
        let changeSplices = Int(source.log.spliceEnd.last ?? 0) - spliceStart
        let (product, overflow) = (op.spliceCount + 1).multipliedReportingOverflow(by: changes)
        return overflow ? Int.max : product + changeSplices
    }

    /// `op`, made on the text at `base`, transformed through every change since, so it applies
    /// to the text at `source.revision`. Throws as `apply` would for a base out of the log, an
    /// operation that does not fit the text at its base (its length, or a surrogate pair it
    /// splits there), and `rebaseTooLarge` beyond `maxRebaseWork`.
    public static func rebase(_ op: TextOperation, base: Int, source: RebaseSource) throws(DocumentError) -> TextOperation {
        let log = ChangeLog(startLength: 0)
        log.state = source.log
        return try rebase(op, base: base, log: log, rope: source.rope)
    }

    static func rebase(_ op: TextOperation, base: Int, log: ChangeLog, rope: Rope) throws(DocumentError) -> TextOperation {
        guard base <= log.revision else { throw .revisionInFuture(base: base, current: log.revision) }
        guard base >= log.firstAvailableRevision - 1 else {
            throw .revisionTrimmed(base: base, firstAvailable: log.firstAvailableRevision)
        }
        guard base < log.revision else { return op }
        let baseLength = log.length(at: base)
        guard op.baseLength == baseLength else {
            throw .invalidOperation(.lengthMismatch(expected: op.baseLength, actual: baseLength))
        }
        let work = rebaseWork(op, base: base, source: RebaseSource(log: log.state, rope: rope))
        guard work <= maxRebaseWork else {
            throw .rebaseTooLarge(splices: op.spliceCount, changes: log.revision - base, limit: maxRebaseWork)
        }
        try checkBoundaries(of: op, base: base, log: log, rope: rope)
        var op = op
        do {
            for r in (base + 1)...log.revision {
                if let one = log.singleSplice(at: r), let next = op.transformed(throughSplice: one, length: log.lengthBefore(r)) {
                    op = next
                } else {
                    op = try op.transformed(through: log.shape(at: r))
                }
            }
        } catch { throw .invalidOperation(error) }
        return op
    }

    /// That no splice of `op` starts or ends inside a surrogate pair of the text at `base`,
    /// which is no longer there to look at: each unit is found where it went since.
    private static func checkBoundaries(of op: TextOperation, base: Int, log: ChangeLog, rope: Rope) throws(DocumentError) {
        var failure: Int?
        op.forEachSplice { splice in
            guard failure == nil else { return }
            for b in [splice.position, splice.position + splice.deleted] where b > 0 && b < op.baseLength {
                if UTF16.isTrailSurrogate(unit(at: b, base: base, log: log, rope: rope)),
                   UTF16.isLeadSurrogate(unit(at: b - 1, base: base, log: log, rope: rope)) {
                    failure = b
                    return
                }
            }
        }
        if let failure { throw .invalidOperation(.splitsSurrogatePair(at: failure)) }
    }

    /// The UTF-16 unit at `position` of the text at `base`: in the deleted text of the change
    /// that removed it, or in today's text where it moved to.
    private static func unit(at position: Int, base: Int, log: ChangeLog, rope: Rope) -> UInt16 {
        var q = position
        for r in (base + 1)...log.revision {
            var shift = 0
            var deleted: UInt16?
            var done = false
            log.forEachSplice(r) { p, d, n, offset in
                guard !done else { return }
                if q < p { done = true; return }
                if q < p + d { deleted = log.state.text[offset + q - p]; done = true; return }
                shift += n - d
            }
            if let deleted { return deleted }
            q += shift
        }
        return rope.utf16Unit(at: q)
    }
}
