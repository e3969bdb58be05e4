import Dispatch
import Foundation
import Logging
import Synchronization
import TandemStore

/// Several nodes on one PostgreSQL where each open document has one owner node at a time
/// (`--cluster leases`, docs/scale-out.md). The owner orders its documents' changes alone, as
/// one node does (`LocalReplication`), and the store's fence refuses any write of a document
/// whose lease this node no longer holds. Sessions, pasteboards and users are still shared
/// through the cluster feed (`SequencedReplication`, following no documents); requests for a
/// document owned elsewhere are forwarded (`DocumentPlacementMiddleware`).
final class LeasedReplication: Replication {
    let ownership: DocumentOwnership
    private let local: LocalReplication
    private let feed: SequencedReplication
    private let address: Mutex<String?>
    /// Whether the heartbeat has stopped; held through each beat, so that none renews this
    /// node's row after `finish` deleted it.
    private let stopped = Mutex(false)

    /// How long a node's leases outlive its last heartbeat.
    static let ttl = 2.0

    /// Moves a document held here to another node if it is idle (`DocumentHandles.moveOut`),
    /// handing its lease over with the closure it is given.
    private let moveOut: @Sendable (_ id: String, _ handOver: () -> Bool) -> Void

    /// Documents moved to their home node per heartbeat, at most, and how long the live nodes
    /// must have been the same first.
    static let movesPerBeat = 16
    static let settledSeconds = 2.0

    init(store: PostgresStore, advertise: String?, load: @escaping @Sendable (_ id: String) throws -> Void,
         moveOut: @escaping @Sendable (_ id: String, _ handOver: () -> Bool) -> Void) {
        self.moveOut = moveOut
        local = LocalReplication(store: store)
        feed = SequencedReplication(store: store, followsDocuments: false)
        ownership = DocumentOwnership(leases: PostgresLeases(store: store, ttl: Self.ttl), load: load)
        address = Mutex(advertise)
    }

    var shared: Bool { true }
    var writesJournalAlone: Bool { true }
    var storedChangesAreOwn: Bool { true }

    func attach(_ documents: DocumentService) { feed.attach(documents) }

    func order(_ steps: [OrderedStep]) { local.order(steps) }

    func afterSync(_ next: @escaping @Sendable (StoreError?) -> Void) { feed.afterSync(next) }

    func health(now: Double) -> StoreHealth? { feed.health(now: now) }

    func prepare() throws(StoreError) { try feed.prepare() }

    /// Where the others reach this node, once its port is bound (`--advertise` wins).
    func bound(port: Int) {
        address.withLock { $0 = $0 ?? "127.0.0.1:\(port)" }
    }

    func start(logger: Logger) {
        feed.start(logger: logger)
        guard let address = address.withLock({ $0 }) else { return }
        if !ownership.heartbeat(address: address) { logger.warning("the first lease heartbeat failed") }
        ownership.refreshMembers()
        let thread = Thread { [self] in
            var failing = false
            while true {
                Thread.sleep(forTimeInterval: Self.beatSeconds)
                let beat = stopped.withLock { stopped -> Bool? in
                    stopped ? nil : ownership.heartbeat(address: address)
                }
                guard let ok = beat else { return }
                if ok { follow(address: address) }
                if ok == failing {
                    failing = !ok
                    if failing { logger.warning("lease heartbeat failed: this node's documents may move") }
                }
            }
        }
        thread.name = "tandem-heartbeat"
        thread.start()
    }

    func stop() { feed.stop() }

    /// How often the heartbeat renews this node's row: a beat may take up to three times as
    /// long (a busy machine, a slow commit) before the leases lapse.
    static let beatSeconds = ttl / 4

    /// Runs `followTheHash` on a queue of its own, once at a time: moving a document waits for
    /// its executor, which must never delay the next heartbeat.
    private func follow(address: String) {
        guard !following.exchange(true, ordering: .acquiringAndReleasing) else { return }
        followQueue.async { [self] in
            defer { following.store(false, ordering: .releasing) }
            if !stopped.withLock({ $0 }) { followTheHash(address: address) }
        }
    }

    private let following = Atomic(false)
    private let followQueue = DispatchQueue(label: "tandem-follow-hash")

    /// Each document's lease follows the balancer's hash as nodes join and leave: documents
    /// held here whose home is now another node move there when idle.
    private func followTheHash(address: String) {
        ownership.refreshMembers()
        for (id, node) in ownership.misplaced(from: address, settled: Self.settledSeconds, limit: Self.movesPerBeat) {
            guard let home = ownership.home(of: id), home.node == node else { continue }
            moveOut(id) { ownership.handOver(id, to: node, address: home.address) }
        }
    }

    /// Whether a new document `id` would be held here: this node is its home on the ring.
    func prefers(_ id: String) -> Bool { ownership.isHome(id) ?? true }

    /// After the shutdown's last snapshots: the leases go at once, and the heartbeat stops.
    func finish() {
        stopped.withLock { $0 = true }
        ownership.leave()
    }

    func tick(now: Double) { feed.tick(now: now) }

    func claimNew(_ id: String, then: @escaping @Sendable (StoreError?) -> Void) {
        ownership.claim(id, then: then)
    }

    func deleted(_ id: String) { ownership.deleted(id) }

    func leaseLost(_ id: String) { ownership.dropped(id) }

    // The owner is the one node that holds the document: what one node alone does.

    func shareSelection(of session: Session, in handle: DocumentHandle, then: @escaping DocumentService.Completion<Void>) {
        local.shareSelection(of: session, in: handle, then: then)
    }

    func selectionRemoved(of session: String, in handle: DocumentHandle) {
        local.selectionRemoved(of: session, in: handle)
    }

    /// The fence keeps a former owner from numbering a version too.
    func saveVersion(_ handle: DocumentHandle, _ request: SaveRequest, of documents: DocumentService,
                     then: @escaping DocumentService.Completion<StoredVersion>) {
        local.saveVersion(handle, request, of: documents, then: then)
    }

    /// Its documents here; each other owner ends the session in its own when it hears of it
    /// (`SessionEnds.endHere`).
    func storeSessionEnd(_ end: SessionEnding, ends: SessionEnds) {
        local.storeSessionEnd(end, ends: ends)
    }
}
