import Foundation
import Logging
import Synchronization
import TandemCore
import TandemStore

/// The one place a document changes. Every mutation the API offers (edit, undo, redo,
/// selective undo, replace, revert, editing actions, groups, levels, names, selection, save,
/// create, delete, metadata) is a method here taking a typed request and answering a typed
/// result through a completion; routes only decode, call and encode.
///
/// Each mutation takes the same steps, in this order (docs/architecture.md draws them):
/// 1. **executor**: a job is sent to the document's `DocumentExecutor`, its state's one owner;
/// 2. **core**: the job applies the change to the `Document` (TandemCore);
/// 3. **journal**: the events the core wrote to the document's `JournalBuffer` are drained;
/// 4. **store**: they are submitted to the store from the job, so the store sees a
///    document's writes in the order memory made them; nothing waits for the store;
/// 5. **publish**: the store's outcome comes back as a message (`CommitInbox`), delivered to
///    the event loop that asked (`Delivery`); there the executor sends the event frames, then
///    the request is answered. Nothing is acknowledged or shown to subscribers before it is
///    durable, and no server code runs on a store's thread.
///
/// A write the store refuses puts the document back as the store holds it
/// (`storeFailed`), and the request gets `503`: nothing it asked for happened.
final class DocumentService: Sendable {
    /// What a mutation answers, called once: on the event loop that asked (or, for work sent
    /// from the pool or a timer, a global queue); never on a store's thread.
    typealias Completion<Result: Sendable> = @Sendable (Swift.Result<Result, APIError>) -> Void

    let configuration: ServerConfiguration
    let store: any DocumentStore
    let documents = Mutex<[String: DocumentHandle]>([:])
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry
    let metrics: Metrics
    let logger: Logger
    /// Where the thread calling it gets the store's outcomes back (`Delivery`): given by the
    /// edge, which knows the event loops.
    let delivery: @Sendable () -> Delivery
    /// Every document's share links by id, for `verifyLink` (kept in step with their rules).
    let links = Mutex<[String: IndexedLink]>([:])
    /// Documents whose last write failed and have not recovered (`/healthz` is failing meanwhile).
    let documentsFailingWrites = Atomic<Int>(0)
    /// The access mode of a new document that asks for none: `--default-access` when set;
    /// else `private` for a signed-in user's (where people are known, what they make is
    /// theirs until they share it, as a new Google Doc is) and `open` for a guest's or an
    /// anonymous one (unlisted, reached by its address as an Etherpad pad is: a guest has
    /// nobody to share with by name, and the quick start needs no set-up).
    func defaultAccess(owner: String?) -> AccessMode {
        if let configured = configuration.defaultAccess.flatMap(AccessMode.init(rawValue:)) { return configured }
        return owner?.hasPrefix(Session.userPrefix) == true ? .private : .open
    }
    /// Open event streams over all documents (a metrics gauge).
    let subscribers = Atomic<Int>(0)
    /// Where work too heavy for an event loop runs (a large stale edit's transform, a large
    /// body): one job per document at a time, documents side by side on one thread fewer
    /// than the cores (at least two), so the loops keep one.
    let heavyWork = HeavyWorkPool(width: max(2, ProcessInfo.processInfo.activeProcessorCount - 1))
    /// How changes take their place among the nodes that share the store (`Replication`).
    let replication: any Replication
    /// Bytes each document's archive holds in the store, as this process knows them: read
    /// at start, then counted as it archives and trims (`DocumentService+Archive`).
    let archiveSizes = Mutex<[String: Int]>([:])

    init(configuration: ServerConfiguration, store: any DocumentStore, sessions: SessionRegistry,
         pasteboards: PasteboardRegistry, metrics: Metrics, logger: Logger, replication: (any Replication)? = nil,
         delivery: @escaping @Sendable () -> Delivery = { .global }) {
        self.configuration = configuration
        self.delivery = delivery
        self.replication = replication ?? LocalReplication(store: store)
        self.store = store
        self.sessions = sessions
        self.pasteboards = pasteboards
        self.metrics = metrics
        self.logger = logger
        self.replication.attach(self)
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// The open document with this id; `404` otherwise.
    func document(_ id: String) throws(APIError) -> DocumentHandle {
        guard let d = documents.withLock({ $0[id] }) else { throw .notFound("document '\(id)'") }
        return d
    }

    func makeEventChannel() -> EventChannel {
        EventChannel(coalescing: configuration.eventCoalescingMilliseconds / 1000) { [self] delta in subscribers.add(delta, ordering: .relaxed) }
    }

    func documentConfiguration(levelsOfUndo: Int) -> Document.Configuration {
        var c = Document.Configuration()
        c.typingPause = configuration.typingPause
        c.levelsOfUndo = levelsOfUndo
        return c
    }
}
