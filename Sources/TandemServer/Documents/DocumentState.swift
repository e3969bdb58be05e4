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

    struct Poller {
        var since: Int
        var deadline: Double
        var responder: HTTPResponder
    }

    var condition: DocumentCondition {
        if savingError { return .savingError }
        if editingDisabled { return .editingDisabled }
        return .normal
    }
}
