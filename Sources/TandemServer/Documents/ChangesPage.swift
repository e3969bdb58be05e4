import TandemCore

/// Changes copied out of a document's log under its lock, to be written as one page of
/// `GET …/edits` after the lock is released (`ChangesPage.init(_:since:maxBytes:)`).
struct ChangesPage: Sendable {
    let since: Int
    let changes: [Change]
    let committedRevision: Int

    init(since: Int, changes: [Change], committedRevision: Int) {
        self.since = since
        self.changes = changes
        self.committedRevision = committedRevision
    }

    /// One page of `GET …/edits`, in two steps so that the document's executor is held only to
    /// copy the changes out: this (in the executor) takes the changes after `since`, up to
    /// what is committed, until their text alone fills `maxBytes`; `encode` (after releasing
    /// it) writes them as a JSON array of about `maxBytes`, at least one change.
    init(_ st: DocumentState, since: Int, maxBytes: Int) {
        var changes: [Change] = []
        var bytes = 0
        try? st.document.forEachChange(since: since) { c in
            guard c.revision <= st.committedRevision, changes.isEmpty || bytes < maxBytes else { return false }
            bytes += ChangesPage.leastBytes(of: c)
            changes.append(c)
            return true
        }
        self.init(since: since, changes: changes, committedRevision: st.committedRevision)
    }

    /// A lower bound of a change's JSON: its inserted text and the keys every change has.
    /// Copying changes until these fill a page copies at least as many as the page holds.
    static func leastBytes(of change: Change) -> Int {
        64 + change.operation.splices.reduce(0) { $0 + 8 + $1.inserted.utf8.count }
    }

    /// The JSON array of the changes while it is under `maxBytes` (at least one), and the
    /// revision the next page starts after: nil when this one reached the committed revision.
    func encode(maxBytes: Int) -> (bytes: [UInt8], next: Int?) {
        var w = JSONWriter(capacity: 256)
        var last = since
        w.beginArray()
        for c in changes {
            guard last == since || w.bytes.count < maxBytes else { break }
            DocumentJSON.change(c, to: &w)
            last = c.revision
        }
        w.endArray()
        return (w.bytes, last < committedRevision ? last : nil)
    }
}

/// How a waiting long-poll of `GET …/edits` is answered; the edge encodes it.
enum PollAnswer: Sendable {
    /// Changes after its `since` were committed.
    case page(ChangesPage)
    /// Its wait ended with nothing new.
    case empty
    /// It may not wait any more (its access ended, the document went, a revision never came).
    case failed(APIError)
}
