import Synchronization
import TandemCore

/// One document: its state behind its own lock, so different documents never wait on each
/// other, and its event channel.
final class DocumentHandle: Sendable {
    let id: String
    let state: Mutex<DocumentState>
    let events: EventChannel

    init(id: String, state: sending DocumentState, events: EventChannel) {
        self.id = id
        self.state = Mutex(state)
        self.events = events
    }
}
