import Synchronization
import TandemCore
import TandemStore

/// One open document: its state, owned by its own executor so that different documents never
/// wait on each other, the store's outcomes on their way to it, and its event channel.
final class DocumentHandle: Sendable {
    let id: String
    let executor: DocumentExecutor<DocumentState>
    /// Outcomes of its changes from the store, waiting for the executor (`CommitInbox`).
    let inbox = CommitInbox()
    let events: EventChannel
    /// Serializes the store writes made for this document outside the change path (saves,
    /// settings), so they land in the order memory takes them, without a thread waiting for
    /// them: a job holds its place until its write is stored. `state` is taken inside a job,
    /// never held across its wait.
    let checkpoints = AsyncSerial()
    /// The document's versions once known (read and written inside `checkpoints` jobs); nil
    /// until the first save reads them from the store, or after a save was refused.
    let versions = Mutex<VersionLedger?>(nil)
    /// Autosave waits until then after its checkpoint found no room (`versions_full`).
    let autosaveRefusedUntil = Mutex<Double>(0)
    /// An autosave is queued or being stored: the next tick does not queue another (the
    /// document looks unsaved until it is stored).
    let autosaving = Atomic<Bool>(false)
    /// The text's length in UTF-16 units as of its last change, read without the lock to
    /// tell whether a request over the whole text belongs on the heavy-work queue.
    let lengthHint: Atomic<Int>
    /// The document's revision as of its last change, read without the lock to judge how far
    /// behind a stale edit is.
    let revisionHint: Atomic<Int>
    /// The document's access rules as they stand (`DocumentState.access` is what gets
    /// stored), read by every request's access check without entering the document's executor, which a
    /// busy document's edits contend for.
    let access: Mutex<AccessRules>
    /// Jobs queued or running in this document's heavy-work lane (`HeavyWorkPool.async(for:)`):
    /// while there are any, its other requests follow them into the lane, rather than wait on
    /// an event loop for the lock a heavy job holds.
    let heavyJobs = Atomic<Int>(0)

    init(id: String, state: sending DocumentState, events: EventChannel) {
        self.id = id
        lengthHint = Atomic(state.document.length)
        revisionHint = Atomic(state.document.revision)
        access = Mutex(state.access)
        executor = DocumentExecutor(state)
        self.events = events
    }
}
