import Logging
import Synchronization
import TandemStore

/// Several nodes on one PostgreSQL (docs/scale-out.md): a step waits in the
/// `ClusterSequencer` for the next sequenced unit, which holds its document's head row in the
/// database, catches the document up and applies it; a node hears of the others' units from
/// the cluster feed, before requests and when the doorbell rings.
final class SequencedReplication: Replication {
    let cluster: Cluster
    private let documents = Mutex<Attached>(Attached())
    /// The feed's head read before loading: the first sync starts after it.
    private let feedHead = Mutex<Int?>(nil)
    private let lastPrune = Mutex<Double>(0)

    private struct Attached {
        // Weak: the service owns this replication, which is made before it.
        weak var service: DocumentService?
    }

    /// `followsDocuments` false: only sessions, pasteboards and users are taken in from the
    /// other nodes (`LeasedReplication`, which orders documents' changes itself).
    init(store: PostgresStore, followsDocuments: Bool = true) {
        cluster = Cluster(store: store, followsDocuments: followsDocuments)
    }

    private var service: DocumentService? { documents.withLock { $0.service } }

    var shared: Bool { true }
    var writesJournalAlone: Bool { false }
    var storedChangesAreOwn: Bool { false }

    /// The sync over the service's documents, made for each call: it keeps no reference to
    /// them between calls.
    private var sync: ClusterSync? { service.map { ClusterSync(cluster: cluster, documents: $0) } }

    func attach(_ documents: DocumentService) {
        self.documents.withLock { $0.service = documents }
    }

    func order(_ steps: [OrderedStep]) {
        guard let service else { return steps.forEach { $0.fail(.storageFailing) } }
        SequencedUnits(cluster: cluster, documents: service).sequence(all: steps)
    }

    func afterSync(_ next: @escaping @Sendable (StoreError?) -> Void) {
        guard let sync else { return next(nil) }
        sync.afterSync(next)
    }

    /// From what the syncs found, never from a read of its own; a sync is started when the
    /// last is a quarter of `Cluster.healthNanoseconds` old, so the next call knows more.
    func health(now: Double) -> StoreHealth? {
        let r = cluster.reachability.withLock { $0 }
        let at = Cluster.monotonicNow()
        if r.syncing == nil, at &- r.checked >= Cluster.healthNanoseconds / 4 { afterSync { _ in } }
        if let started = r.syncing, at &- started >= Cluster.stuckNanoseconds {
            let seconds = Double(at &- started) / 1e9
            return .failing(.io("the database has not answered for \(Int(seconds)) s"), since: now - seconds)
        }
        if let failure = r.failure { return .failing(failure.error, since: failure.since) }
        return nil
    }

    func prepare() throws(StoreError) {
        // Whatever commits during the load is applied again by the first sync: harmless.
        let head = try cluster.store.clusterHead()
        feedHead.withLock { $0 = head }
    }

    func start(logger: Logger) {
        if let head = feedHead.withLock({ $0 }) { cluster.gate.withLock { $0.applied = head } }
        cluster.listener.withLock {
            // On the sync queue, with the requests waiting: one read serves both.
            $0 = ClusterListener(store: cluster.store) { [self] in
                afterSync { failure in
                    if let failure { logger.warning("cluster sync failed: \(failure)") }
                }
            }
        }
    }

    func stop() {
        cluster.listener.withLock { $0?.stop() }
    }

    /// An idle node syncs about once a second (so `/healthz` notices a database gone away),
    /// and the feed is pruned once a minute.
    func tick(now: Double) {
        let due = cluster.reachability.withLock { r in
            r.syncing == nil && Cluster.monotonicNow() &- r.checked >= Cluster.healthNanoseconds
        }
        if due { afterSync { _ in } }
        let prune = lastPrune.withLock { last -> Bool in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        if prune { try? cluster.store.pruneClusterLog(olderThan: Cluster.feedKept) }
    }

    func shareSelection(of session: Session, in handle: DocumentHandle, then: @escaping DocumentService.Completion<Void>) {
        guard let sync else { return then(.failure(.storageFailing)) }
        sync.shareSelection(of: session, in: handle, then: then)
    }

    func selectionRemoved(of session: String, in handle: DocumentHandle) {
        sync?.selectionRemoved(of: session, in: handle)
    }

    func saveVersion(_ handle: DocumentHandle, _ request: SaveRequest, of documents: DocumentService,
                     then: @escaping DocumentService.Completion<StoredVersion>) {
        ClusterSync(cluster: cluster, documents: documents).saveVersion(handle, request, then: then)
    }

    func storeSessionEnd(_ end: SessionEnding, ends: SessionEnds) {
        guard let sync else { return end.then(.failure(.io("the session's end was not stored: storage_failing"))) }
        sync.storeSessionEnd(end, ends: ends)
    }
}
