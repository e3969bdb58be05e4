import TandemCore
import TandemHTTP

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
    /// Set when the store failed; edits answer 503 until the store works again.
    var savingError = false
    /// The newest revision the store has committed: readers of the log and the event stream
    /// never see past it, so nothing unacknowledged is ever shown as history.
    var committedRevision: Int
    /// Long-polls waiting for a revision after `since`.
    var pollers: [Poller] = []
    var deleted = false
    var lastSavedRevision: Int
    var lastSaved: Double?
    var lastSnapshotRevision: Int
    var lastSnapshotTime: Double = 0
    /// Journal events not yet carried by a stored change.
    var journal: JournalBuffer?
    /// While changes wait for their commit, what readers are shown instead of the document:
    /// the state at `committedRevision`. Nil when nothing is in flight (the document is it).
    var committedView: CommittedView?
    /// The state after each applied change still waiting for its commit, oldest first.
    var inFlight: [CommittedView] = []

    /// A revision's text and change count; ropes are copy-on-write, so keeping one is O(1).
    struct CommittedView {
        var revision: Int
        var rope: Rope
        var changeCount: Int
    }

    struct Poller {
        var since: Int
        var deadline: Double
        var responder: HTTPResponder
    }

    /// The committed text: GET and saves never show a change that is not yet durable.
    var committedRope: Rope { committedView?.rope ?? document.rope }
    var committedChangeCount: Int { committedView?.changeCount ?? document.changeCount }

    /// A change was applied and queued for commit: readers keep seeing the state before it.
    mutating func changeInFlight(before: CommittedView?) {
        if inFlight.isEmpty, let before { committedView = before }
        inFlight.append(CommittedView(revision: document.revision, rope: document.rope, changeCount: document.changeCount))
    }

    /// `revision` committed: readers move up to it.
    mutating func changeCommitted(_ revision: Int) {
        // One removal for all that committed: removeFirst in a loop shifted the rest each time.
        let done = inFlight.firstIndex { $0.revision > revision } ?? inFlight.count
        let newest = done > 0 ? inFlight[done - 1] : nil
        inFlight.removeFirst(done)
        if inFlight.isEmpty {
            committedView = nil
        } else if let newest {
            committedView = newest
        }
    }

    var condition: DocumentCondition {
        if savingError { return .savingError }
        if editingDisabled { return .editingDisabled }
        return .normal
    }
}
