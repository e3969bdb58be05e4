import Foundation
import Synchronization
import TandemStore

/// What a node of a cluster keeps to stay in step with the others on one PostgreSQL
/// (docs/scale-out.md): how far it has read the cluster feed, the changes waiting for their
/// sequenced unit, and whether the database answered lately.
///
/// Threads: `sync` runs on the sync queue only (for requests, the doorbell and the health
/// refresh), one at a time (`gate`), so no event loop ever waits for the gate; sequenced units
/// run on the store's writer thread.
final class Cluster: Sendable {
    let store: PostgresStore
    let sequencer = ClusterSequencer()
    /// Held while the feed is read and applied: one sync at a time, so entries are applied
    /// in order and `applied` only moves forward.
    let gate = Mutex<SyncState>(SyncState())
    /// Requests waiting for the next sync, and whether the sync queue is draining them
    /// (`ClusterSync.afterSync`).
    let waiting = Mutex<(list: [WaitingRequest], draining: Bool)>(([], false))
    /// Where syncs for requests run, one after the other: each covers every request that
    /// arrived before it started, so under load one read of the feed serves many requests,
    /// and no event loop waits for the database.
    let syncQueue = DispatchQueue(label: "Tandem cluster sync")

    struct WaitingRequest: Sendable {
        /// Monotonic ns.
        var arrived: UInt64
        /// Called on the sync queue with the sync's failure, if any.
        var next: @Sendable (StoreError?) -> Void
    }

    /// What the syncs found lately, which `/healthz` answers from without waiting for the
    /// database (`DocumentService.storeHealth`).
    let reachability = Mutex(Reachability())

    struct Reachability {
        /// The last sync's failure, and when (seconds since 1970) the failures in a row began.
        var failure: (error: StoreError, since: Double)?
        /// When the last sync ended, and when the one under way began (monotonic ns).
        var checked: UInt64 = 0
        var syncing: UInt64?
    }

    /// The doorbell; set once the node has loaded.
    let listener = Mutex<ClusterListener?>(nil)

    struct SyncState {
        /// The newest feed entry this node has applied.
        var applied = 0
        /// When the last sync that completed started (monotonic ns): a request that arrived
        /// before it needs no sync of its own.
        var lastStarted: UInt64 = 0
        /// Until when (monotonic ns) the database counts as down after a failed sync: requests
        /// meanwhile are refused at once rather than each waiting for a connection attempt.
        var downUntil: UInt64 = 0
        /// Why the last sync failed: what a sync refused meanwhile says too.
        var lastError: StoreError?
    }

    /// Whether this node takes in the other nodes' document changes from the feed: not where
    /// each document has one owner (`LeasedReplication`), which alone changes it.
    let followsDocuments: Bool

    init(store: PostgresStore, followsDocuments: Bool = true) {
        self.store = store
        self.followsDocuments = followsDocuments
    }

    /// Entries read per query while catching up.
    static let pageSize = 2_000
    /// How long the feed keeps entries: a node away longer reloads everything.
    static let feedKept = 600.0
    /// After a failed sync, how long requests are refused without trying again.
    static let downNanoseconds: UInt64 = 500_000_000
    /// How old what `/healthz` says may grow: an idle node syncs this often to know.
    static let healthNanoseconds: UInt64 = 1_000_000_000
    /// A sync under way this long counts as a database that does not answer.
    static let stuckNanoseconds: UInt64 = 5_000_000_000

    static func monotonicNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// The changes (and undo-state changes) waiting for the next sequenced unit, in arrival order.
/// At most one unit is queued on the writer at a time: it takes everything waiting when it
/// runs, so changes that arrive while one commits ride in the next.
final class ClusterSequencer: Sendable {
    typealias Step = OrderedStep

    private let queue = Mutex<(steps: [Step], scheduled: Bool)>(([], false))

    /// Steps that may wait at once: behind a database that slows down, changes are refused
    /// (`503 database_busy`, with `Retry-After`) rather than queued without bound.
    static let maxWaiting = 5_000

    enum Added { case queued, schedule, refused }

    /// Queues steps that must run in one unit (one transaction), all or none (one step, for a
    /// single change); `.schedule` when the caller must submit a unit to take them.
    func add(all steps: [Step]) -> Added {
        queue.withLock { q in
            guard q.steps.count + steps.count <= Self.maxWaiting else { return .refused }
            q.steps += steps
            if q.scheduled { return .queued }
            q.scheduled = true
            return .schedule
        }
    }

    /// The steps waiting for `documents` (whose locks the caller's unit holds), leaving the
    /// rest, and the unit scheduled for them, as they are: changes that arrived while the unit
    /// waited for its locks ride in it instead of the next.
    func take(for documents: Set<String>) -> [Step] {
        queue.withLock { q in
            guard q.steps.contains(where: { $0.joinsLate && documents.contains($0.handle.id) }) else { return [] }
            var taken: [Step] = []
            q.steps.removeAll { step in
                guard step.joinsLate && documents.contains(step.handle.id) else { return false }
                taken.append(step)
                return true
            }
            return taken
        }
    }

    /// Everything waiting; the next `add` schedules a new unit.
    func take() -> [Step] {
        queue.withLock { q in
            q.scheduled = false
            defer { q.steps.removeAll(keepingCapacity: true) }
            return q.steps
        }
    }
}
