import TandemCore

/// UIDocument's documentState, as the API shows it.
public enum DocumentCondition: String, Sendable {
    case normal
    case editingDisabled
    case savingError
}

/// Everything about one open document that changes under its lock.
struct DocumentState {
    var document: Document
    var title: String
    var created: Double
    var modified: Double
    var editingDisabled = false
    /// A secure document is never copied to a pasteboard (like a secure text field).
    var secure = false
    /// Its owner, mode, members and share links.
    var access = AccessRules(access: .open, owner: nil)
    /// Set when the store failed; edits answer 503 until the store works again.
    var savingError = false
    /// The newest revision the store has committed: readers of the log and the event stream
    /// never see past it, so nothing unacknowledged is ever shown as history.
    var committedRevision: Int
    /// Long-polls waiting for a revision after `since`.
    var pollers: [Poller] = []
    var deleted = false
    /// Deleted from memory because another node took the document over (its lease moved):
    /// requests that were waiting are `503 document_moved`, to be sent again, not `404`.
    var moved = false

    /// What a request finds once the document left memory: gone, or moved to another node.
    func goneError(_ id: String) -> APIError { moved ? .documentMoved : .notFound("document '\(id)'") }
    var lastSavedRevision: Int
    var lastSaved: Double?
    var lastSnapshotRevision: Int
    var lastSnapshotTime: Double = 0
    /// In a cluster: this node made the newest change, so it is the one that autosaves it.
    var lastChangeLocal = true
    /// Journal events not yet carried by a stored change.
    var journal: JournalBuffer?
    /// The changes applied but still waiting for their commit, oldest first.
    var inFlight: [InFlight] = []
    /// The text of the last saved version (of the document as created, before any): unsaved
    /// changes are a committed text that differs from it, whatever path led there. Nil when
    /// not known (a document stored by an older server with no version and a change count),
    /// where the change count decides.
    var savedRope: Rope?
    /// The committed revision whose text `savedRope` is: at it, nothing needs comparing.
    var savedRevision = 0
    /// The last comparison of the committed text with `savedRope`, so that autosave, which
    /// asks every document every second, compares a text once per revision, not every time.
    let unsavedMemo = UnsavedMemo()

    final class UnsavedMemo {
        var key: (committed: Int, saved: Int)?
        var unsaved = false
    }

    struct InFlight {
        var revision: Int
        /// The document's change count before it.
        var countBefore: ChangeCounter
    }

    struct Poller {
        var since: Int
        var deadline: Double
        /// Answers the request that waits (encoded at the edge).
        var answer: @Sendable (PollAnswer) -> Void
        /// Who waits: it is answered 404 if its access is taken away meanwhile.
        var caller: Caller = .anonymous
        /// In a cluster, a `since` ahead of this node (another node's commit it has not taken
        /// in yet): answered as soon as the document reaches it, `422 revision_in_future` if
        /// it has not by the deadline.
        var behind = false
    }

    /// The committed text: GET and saves never show a change that is not yet durable. Worked
    /// out when asked, by undoing the changes in flight, rather than kept: a kept copy would share the
    /// rope's nodes, so every keystroke would copy its path, and something would free the old ones.
    /// The log always holds them (it is trimmed only up to `committedRevision`).
    var committedRope: Rope {
        guard let first = inFlight.first else { return document.rope }
        return (try? document.rope(atRevision: first.revision - 1)) ?? document.rope
    }

    var committedChangeCount: Int { committedChangeCounter.count }

    var committedChangeCounter: ChangeCounter { inFlight.first?.countBefore ?? document.changeCounts.document }

    /// UIDocument's count for the calling scope, as committed, except that it is never 0 while
    /// the text differs from the last saved version, unless discardable groups (anyone's) done
    /// since the save are still in effect: no count may make the document look clean when it is not (others'
    /// changes, or an undo others changed, can bring the arithmetic back to 0 on a text never
    /// saved), but a discardable change is one that needs no save (docs/undo-rules.md).
    func reportedChangeCount(_ scope: UndoScope) -> Int {
        // A session's own count includes its changes still in flight (for a few ms); the
        // document's is the committed one.
        let count = scope == .document ? committedChangeCount : document.changeCount(scope)
        // Anyone's discardable groups still in effect may be all that differs: then 0 stands.
        return count == 0 && committedChangeCounter.discarded == 0 && hasUnsavedChanges ? 1 : count
    }

    /// Whether the committed text differs from the last saved version. UIDocument's change
    /// count cannot say so: saved, undone, then changed anew (or undone after others typed),
    /// it comes back to 0 on a text that was never saved.
    var hasUnsavedChanges: Bool {
        guard let saved = savedRope else { return committedChangeCount != 0 }
        if committedRevision == savedRevision { return false }
        if let key = unsavedMemo.key, key == (committedRevision, savedRevision) { return unsavedMemo.unsaved }
        let text = committedRope
        let unsaved = text.utf16Count != saved.utf16Count || text.description != saved.description
        unsavedMemo.key = (committedRevision, savedRevision)
        unsavedMemo.unsaved = unsaved
        return unsaved
    }

    /// A change was applied and queued for commit: readers keep seeing the state before it.
    mutating func changeInFlight(countBefore: ChangeCounter) {
        inFlight.append(InFlight(revision: document.revision, countBefore: countBefore))
    }

    /// Changes up to `revision` committed: readers move up to it.
    mutating func changeCommitted(_ revision: Int) {
        // One removal for all that committed: removeFirst in a loop shifted the rest each time.
        inFlight.removeFirst(inFlight.firstIndex { $0.revision > revision } ?? inFlight.count)
    }

    var condition: DocumentCondition {
        if savingError { return .savingError }
        if editingDisabled { return .editingDisabled }
        return .normal
    }
}
