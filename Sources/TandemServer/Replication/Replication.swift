import Logging
import TandemStore

/// The seam between a node's documents and the other nodes that share its store: every change
/// takes its place in its document's one order through `order`, and a request that must see
/// what any node committed before it arrived waits for `afterSync`. Where the nodes differ
/// (a version's number, a session's end, selections, the journal) document code asks the
/// methods and policies below, never whether there are other nodes: a new implementation
/// answers them and the documents need no change.
///
/// Two implementations: `LocalReplication`, one node alone with its store, and
/// `SequencedReplication`, several nodes on one PostgreSQL (docs/scale-out.md).
protocol Replication: Sendable {
    /// Whether other nodes write the same documents: for the edge (the requests' sync, a
    /// revision another node may have made); document code asks the policies below instead.
    var shared: Bool { get }

    /// Whether this node alone writes its documents' journal: then a trim of memory is
    /// journaled (replayed on restart), and a shutdown snapshot may take the pending undo
    /// events in; else each node trims its memory alone, unjournaled, and the pending events
    /// stay stored for the others.
    var writesJournalAlone: Bool { get }

    /// Whether a document's last stored change counts, when loaded, as this node's own: its
    /// autosave is then this node's to do (else the node that makes the next change saves).
    var storedChangesAreOwn: Bool { get }

    /// The service whose documents the steps change; called once, as it is made.
    func attach(_ documents: DocumentService)

    /// Puts `steps` (one document's change; several, stored all or none, for a session's end)
    /// in their documents' order, runs each in its document's executor, and stores what they
    /// return. A step refused before it ran hears `fail`.
    func order(_ steps: [OrderedStep])

    /// Calls `next` once this node holds everything any node committed before now, with the
    /// failure if that could not be read; at once when no other node writes.
    func afterSync(_ next: @escaping @Sendable (StoreError?) -> Void)

    /// What the last exchange with the other nodes found, for `/healthz` (never waited for);
    /// nil when there are none, or nothing is wrong.
    func health(now: Double) -> StoreHealth?

    /// Before the documents are loaded: where hearing of others' changes will start.
    func prepare() throws(StoreError)
    /// Once loaded: start hearing of others' changes, with `logger` for what goes wrong.
    func start(logger: Logger)
    func stop()
    /// Housekeeping's tick.
    func tick(now: Double)

    /// Makes the session's current selection in the document seen by the other nodes; `then`
    /// once it is (at once when there are none).
    func shareSelection(of session: Session, in handle: DocumentHandle, then: @escaping DocumentService.Completion<Void>)

    /// The session left the document here and its selection went: the other nodes, if any,
    /// drop it too.
    func selectionRemoved(of session: String, in handle: DocumentHandle)

    /// Saves the document's committed text as its next version (`DocumentService.save`),
    /// numbered so that no two saves, on any node, take the same number.
    func saveVersion(_ handle: DocumentHandle, _ request: SaveRequest, of documents: DocumentService,
                     then: @escaping DocumentService.Completion<StoredVersion>)

    /// Stores a session's end over every open document as one unit (`SessionEnds`), in each
    /// document's order.
    func storeSessionEnd(_ end: SessionEnding, ends: SessionEnds)

    func claimNew(_ id: String, then: @escaping @Sendable (StoreError?) -> Void)
    func deleted(_ id: String)
    func leaseLost(_ id: String)
    func bound(port: Int)
    func finish()
    func prefers(_ id: String) -> Bool
}

/// One change (or undo-state change, save, selection) waiting for its place in its document's
/// order.
struct OrderedStep: Sendable {
    var handle: DocumentHandle
    /// Applies the change in the document's executor (after any catch-up).
    var apply: @Sendable (inout DocumentState) -> AppliedChange
    /// Answers the request when the step is refused before it ran.
    var fail: @Sendable (APIError) -> Void
    /// A save: the newest version number is read first, in the document's order.
    var numbersVersion = false
    /// Whether it may join a unit that already holds its document (`ClusterSequencer.take(for:)`);
    /// a step of several that must commit together may not (a session's end).
    var joinsLate = true
}

extension Replication {
    /// Takes what a new document `id` needs before it is stored (its lease, where documents
    /// have owners); `then` with nil once it may be, else the store's refusal.
    func claimNew(_ id: String, then: @escaping @Sendable (StoreError?) -> Void) { then(nil) }
    /// The document `id` was deleted (its lease, if any, is given up).
    func deleted(_ id: String) {}
    /// The store refused a write of `id` because this node no longer owns it.
    func leaseLost(_ id: String) {}
    /// The server is bound to `port` (the address other nodes reach it at, if they do).
    func bound(port: Int) {}
    /// The shutdown's last step, after the final snapshots (leases are given up).
    func finish() {}
    /// Whether a new document `id` is best held by this node (where documents have owners:
    /// the balancer sends its requests here).
    func prefers(_ id: String) -> Bool { true }

    /// One document's step.
    func order(_ handle: DocumentHandle, numbersVersion: Bool = false, fail: @escaping @Sendable (APIError) -> Void,
               _ apply: @escaping @Sendable (inout DocumentState) -> AppliedChange) {
        order([OrderedStep(handle: handle, apply: apply, fail: fail, numbersVersion: numbersVersion)])
    }
}
