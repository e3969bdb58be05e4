import Synchronization
import TandemCore

/// One document: its state behind its own lock, so different documents never wait on each
/// other, and its event channel.
final class DocumentHandle: Sendable {
    let id: String
    let state: DocumentLock<DocumentState>
    let events: EventChannel
    /// Serializes the blocking store writes made for this document outside `state` (saves,
    /// settings), so they land in the order memory takes them. Lock order: this, then
    /// `state`; never the other way round, and `state` is never held while waiting for the
    /// store (the store's writer takes `state` to publish a commit). Holds the newest
    /// version number once known.
    let checkpoint = Mutex<Int?>(nil)
    /// The text's length in UTF-16 units as of its last change, read without the lock to
    /// tell whether a request over the whole text belongs on the heavy-work queue.
    let lengthHint: Atomic<Int>
    /// The document's revision as of its last change, read without the lock to judge how far
    /// behind a stale edit is.
    let revisionHint: Atomic<Int>

    init(id: String, state: sending DocumentState, events: EventChannel) {
        self.id = id
        lengthHint = Atomic(state.document.length)
        revisionHint = Atomic(state.document.revision)
        self.state = DocumentLock(state)
        self.events = events
    }
}
