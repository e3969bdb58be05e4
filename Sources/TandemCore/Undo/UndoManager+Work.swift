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
