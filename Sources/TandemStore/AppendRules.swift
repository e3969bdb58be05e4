/// What every store checks of an append, in one place, so that each refuses the same appends
/// with the same errors (the contract tests run against all of them).
enum AppendRules {
    /// The changes of each document, in the order the documents first appear: an append of
    /// several documents is stored document by document, the first refusal failing it whole.
    static func byDocument(_ changes: [StoredChange]) -> [(document: String, changes: ArraySlice<StoredChange>)] {
        guard let firstChange = changes.first else { return [] }
        // Nearly always one document: avoid the dictionary then.
        if changes.allSatisfy({ $0.documentID == firstChange.documentID }) {
            return [(firstChange.documentID, changes[...])]
        }
        var order: [String] = []
        var byDocument: [String: [StoredChange]] = [:]
        for change in changes {
            if byDocument[change.documentID] == nil { order.append(change.documentID) }
            byDocument[change.documentID, default: []].append(change)
        }
        return order.map { ($0, byDocument[$0]![...]) }
    }

    /// The revisions that one document's (non-empty) `changes` cover: `.conflict` unless each
    /// is one past the one before (a revision past `Int.max` is no revision).
    static func revisions(of changes: ArraySlice<StoredChange>, document: String) throws(StoreError) -> ClosedRange<Int> {
        let first = changes.first!.revision
        for (offset, change) in changes.enumerated() {
            let (expected, overflow) = first.addingReportingOverflow(offset)
            if overflow || change.revision != expected {
                throw .conflict("revisions of \(document) are not consecutive at \(change.revision)")
            }
        }
        return first...changes.last!.revision
    }
}

extension StoreError {
    /// The document is not stored.
    static func noDocument(_ id: String) -> StoreError {
        .notFound("no document \(id)")
    }

    /// An append whose first revision does not follow the stored one.
    static func notNext(_ document: String, stored: Int, first: Int) -> StoreError {
        .conflict("document \(document) is at revision \(stored), cannot append revision \(first)")
    }
}
