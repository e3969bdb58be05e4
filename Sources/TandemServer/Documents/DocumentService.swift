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
/// (`DocumentPersistence.storeFailed`), and the request gets `503`: nothing it asked for happened.
///
/// The work behind the commands is done by the parts it holds, each one concept, each holding
/// only what it needs, so control flows one way (edge → executor → store; outcomes come back
/// as messages): `DocumentHandles` (what is open), `ChangePipeline` (how a change is applied,
/// stored and published), `DocumentPersistence` (memory and the store), `DocumentEvents`,
/// `DocumentAccess` and `SessionEnds`. How changes take their place among other nodes is the
/// `replication`'s alone: no command asks whether there are other nodes.
final class DocumentService: Sendable {
    /// What a mutation answers, called once: on the event loop that asked (or, for work sent
    /// from the pool or a timer, a global queue); never on a store's thread.
    typealias Completion<Result: Sendable> = @Sendable (Swift.Result<Result, APIError>) -> Void

    let configuration: ServerConfiguration
    let store: any DocumentStore
    let sessions: SessionRegistry
    let pasteboards: PasteboardRegistry
    let metrics: Metrics
    let logger: Logger
    /// Where the thread calling it gets the store's outcomes back (`Delivery`): given by the
    /// edge, which knows the event loops.
    let delivery: @Sendable () -> Delivery
    /// Where work too heavy for an event loop runs (a large stale edit's transform, a large
    /// body): one job per document at a time, documents side by side on one thread fewer
    /// than the cores (at least two), so the loops keep one.
    let heavyWork = HeavyWorkPool(width: max(2, ProcessInfo.processInfo.activeProcessorCount - 1))
    /// How changes take their place among the nodes that share the store (`Replication`).
    let replication: any Replication

    let handles: DocumentHandles
    let events: DocumentEvents
    let persistence: DocumentPersistence
    let pipeline: ChangePipeline
    let access: DocumentAccess
    let sessionEnds: SessionEnds

    /// The open documents (`handles`), under the name the edge knows.
    var documents: DocumentHandles { handles }
    /// Open event streams over all documents (a metrics gauge).
    var subscribers: SharedCount { handles.subscribers }
    /// Documents whose last write failed and have not recovered (`/healthz` is failing meanwhile).
    var documentsFailingWrites: SharedCount { persistence.failingWrites }
    /// Bytes each document's archive holds in the store (`DocumentPersistence+Archive`).
    var archiveSizes: SharedValue<[String: Int]> { persistence.archiveSizes }

    /// The access mode of a new document that asks for none: `--default-access` when set;
    /// else `private` for a signed-in user's (where people are known, what they make is
    /// theirs until they share it, as a new Google Doc is) and `open` for a guest's or an
    /// anonymous one (unlisted, reached by its address as an Etherpad pad is: a guest has
    /// nobody to share with by name, and the quick start needs no set-up).
    func defaultAccess(owner: String?) -> AccessMode {
        if let configured = configuration.defaultAccess.flatMap(AccessMode.init(rawValue:)) { return configured }
        return owner?.hasPrefix(Session.userPrefix) == true ? .private : .open
    }

    init(configuration: ServerConfiguration, store: any DocumentStore, sessions: SessionRegistry,
         pasteboards: PasteboardRegistry, metrics: Metrics, logger: Logger, replication: (any Replication)? = nil,
         delivery: @escaping @Sendable () -> Delivery = { .global }) {
        let replication = replication ?? LocalReplication(store: store)
        self.configuration = configuration
        self.delivery = delivery
        self.replication = replication
        self.store = store
        self.sessions = sessions
        self.pasteboards = pasteboards
        self.metrics = metrics
        self.logger = logger
        handles = DocumentHandles(eventCoalescingMilliseconds: configuration.eventCoalescingMilliseconds)
        events = DocumentEvents(handles: handles, sessions: sessions, pasteboards: pasteboards)
        persistence = DocumentPersistence(store: store, configuration: configuration, handles: handles, events: events,
                                          logger: logger, delivery: delivery,
                                          writesJournalAlone: replication.writesJournalAlone,
                                          storedChangesAreOwn: replication.storedChangesAreOwn,
                                          leaseLost: { [replication] in replication.leaseLost($0) })
        pipeline = ChangePipeline(replication: replication, delivery: delivery, persistence: persistence, metrics: metrics,
                                  logger: logger, editsPageBytes: configuration.editsPageBytes)
        access = DocumentAccess(handles: handles, store: store, sessions: sessions, persistence: persistence, delivery: delivery)
        sessionEnds = SessionEnds(handles: handles, store: store, pasteboards: pasteboards, events: events,
                                  persistence: persistence, replication: replication, delivery: delivery)
        replication.attach(self)
    }

    func now() -> Double { Date().timeIntervalSince1970 }

    /// The open document with this id; `404` otherwise.
    func document(_ id: String) throws(APIError) -> DocumentHandle {
        try handles.handle(id)
    }
}

extension DocumentService {
    /// The store's health as last seen, for `/healthz` (never a read or a write on the way):
    /// what the replication found among the nodes, else what this node's store says.
    func storeHealth() -> StoreHealth { replication.health(now: now()) ?? persistence.storeHealth() }
}
