import TandemCore

/// What an event stream resumed with `Last-Event-ID` replays: the committed changes it
/// missed, unless they come to more than a byte budget (then nil, and the stream sends
/// `reset`). Read one change at a time, so an over-budget log costs the budget, not the log.
enum CatchUp {
    /// Framing, ids and a history event per change, beyond the operation's own text.
    static let overheadPerChange = 256

    static func changes(in st: DocumentState, since last: Int, budget: Int) -> [Change]? {
        // Counted first from the log (UTF-16 units, no more than their UTF-8 bytes), so that a
        // catch-up over the budget builds none of its changes.
        guard st.document.insertedUnits(since: last, through: st.committedRevision, perChange: overheadPerChange,
                                        stoppingAbove: budget) <= budget else { return nil }
        var missed: [Change] = []
        var bytes = 0
        do throws(DocumentError) {
            try st.document.forEachChange(since: last) { c in
                guard c.revision <= st.committedRevision else { return false }
                bytes += overheadPerChange + c.operation.splices.reduce(0) { $0 + $1.inserted.utf8.count }
                guard bytes <= budget else { return false }
                missed.append(c)
                return true
            }
        } catch {
            return nil
        }
        return bytes <= budget ? missed : nil
    }
}
