import TandemCore

/// Changes copied out of a document's log under its lock, to be written as one page of
/// `GET …/edits` after the lock is released (`DocumentService.changesPage`).
struct ChangesPage: Sendable {
    let since: Int
    let changes: [Change]
    let committedRevision: Int

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
