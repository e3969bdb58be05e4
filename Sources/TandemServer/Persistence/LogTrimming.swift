import TandemCore

/// The change log in memory: a document keeps its newest changes for stale bases and
/// catching up, within a budget of bytes; what leaves memory goes to the archive.
extension DocumentPersistence {
    /// Changes kept in memory for `since`/`base` after a trim.
    static let logKept = 10_000

    /// Cuts a log that grew past twice `logKept` back to `logKept`, and one whose text grew past
    /// `budget` bytes back to the newest changes holding half of it (a few changes of megabytes
    /// each weigh more than thousands of keystrokes); never past what is committed: the
    /// committed text is worked out from the changes in flight (DocumentState.committedRope).
    /// Where other nodes write the journal too (`journaled` false) each node trims its
    /// memory alone, unjournaled.
    /// Returns the changes that left memory when `archiving` (for `archive`), else none.
    static func trimToKeptTail(_ st: inout DocumentState, journaled: Bool, budget: Int, archiving: Bool) -> [Change] {
        let document = st.document
        var through = document.firstAvailableRevision - 1
        if document.revision - document.firstAvailableRevision > 2 * logKept { through = document.revision - logKept }
        if overBudget(document, budget) {
            // The oldest revision whose later changes fit in half the budget.
            var lo = through, hi = document.revision
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if document.loggedUnits(since: mid) * 2 <= budget / 2 { hi = mid } else { lo = mid + 1 }
            }
            through = lo
        }
        let end = min(through, st.committedRevision)
        guard end >= document.firstAvailableRevision else { return [] }
        let leaving = archiving ? Self.changes(of: document, through: end) : []
        document.trimLog(through: end, journaled: journaled)
        return leaving
    }

    /// `trimToKeptTail` under `id`'s executor, with the archive write of what left memory
    /// counted as in flight from this step on (`ArchivesInFlight`).
    func trimToKeptTail(_ st: inout DocumentState, of id: String, budget: Int, archiving: Bool) -> [Change] {
        let leaving = Self.trimToKeptTail(&st, journaled: writesJournalAlone, budget: budget, archiving: archiving)
        if !leaving.isEmpty { archivesInFlight.begin(id) }
        return leaving
    }

    /// The changes still in memory up to `end`, oldest first.
    static func changes(of document: Document, through end: Int) -> [Change] {
        var changes: [Change] = []
        changes.reserveCapacity(max(0, end - document.firstAvailableRevision + 1))
        try? document.forEachChange(since: document.firstAvailableRevision - 1) { c in
            guard c.revision <= end else { return false }
            changes.append(c)
            return true
        }
        return changes
    }

    /// The budget each log gets when all of them together may hold `total` bytes and one
    /// `each`: the largest share (water-filling) under which the logs, each cut to it, fit
    /// in `total`, so that the largest logs are cut first and small ones are left alone;
    /// never under `floor`, 1 MiB, the smallest a single log may be given.
    static func logShare(sizes: [Int], total: Int, each: Int, floor: Int = 1 << 20) -> Int {
        guard sizes.reduce(0, +) > total else { return each }
        let sorted = sizes.sorted(by: >)
        // Smaller logs, whole, and `k` larger ones at the share: the share is what is left
        // of `total` after the smaller ones, split among the larger.
        var smaller = sorted.reduce(0, +)
        for k in 1...sorted.count {
            smaller -= sorted[k - 1]
            let share = (total - smaller) / k
            if k == sorted.count || share >= sorted[k] { return min(each, max(floor, share)) }
        }
        return each
    }

    /// Whether a document's change log holds more changed text than `budget` bytes.
    static func overBudget(_ document: Document, _ budget: Int) -> Bool {
        document.loggedUnits(since: 0) * 2 > budget
    }

    /// A new document's state, its journal wired to a fresh buffer. A rebuilt document's
    /// buffer starts with the `pending` events it replayed: the next stored change or pending

    /// With `logKept` set (a testing knob), keeps only that many changes in memory, so that a
    /// test can reach `410 revision_trimmed` and the `reset` event without thousands of
    /// changes. The changes leaving memory are archived as usual; the rest of the store is
    /// not touched: a restart rebuilds the log from the snapshot as usual. Only a document at rest is trimmed (nothing waiting for its commit), as after
    /// a snapshot.
    func trimLogsToConfiguredLength() {
        guard let kept = configuration.logKept else { return }
        for handle in handles.all() {
            let leaving = handle.executor.sync { st -> [Change] in
                let document = st.document
                guard !st.deleted, !st.savingError, st.inFlight.isEmpty, st.committedRevision == document.revision,
                      document.revision - (document.firstAvailableRevision - 1) > kept
                else { return [] }
                let leaving = configuration.archiveBytes > 0 ? Self.changes(of: document, through: document.revision - kept) : []
                document.trimLog(through: document.revision - kept, journaled: writesJournalAlone)
                if !leaving.isEmpty { archivesInFlight.begin(handle.id) }
                return leaving
            }
            archive(leaving, of: handle.id)
        }
    }
}
