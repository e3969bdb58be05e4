import Dispatch
import Foundation
import Synchronization
import TandemStore

/// Which node serves each document where documents have owners (`--cluster leases`,
/// docs/scale-out.md): this node, under the lease's epoch, or another, reached at its
/// advertised address. What it learned is kept a moment so most requests ask PostgreSQL
/// nothing; lease reads and takes, and the loads that follow a take, run on its own serial
/// queue, never on an event loop.
///
/// It promises: a document is served here only while this node holds its lease and its
/// heartbeat is fresh, and from memory loaded after the epoch it holds began (a document
/// held before, lost unseen and taken back, is loaded again: the other owner's commits are in
/// the store).
final class DocumentOwnership: Sendable {
    /// Where a request for a document goes.
    enum Placement: Sendable, Equatable {
        /// This node holds the lease (and the document, if it exists, is loaded).
        case here
        /// Another live node holds it.
        case other(address: String)
    }

    private enum Known {
        /// Held here; the epoch it was loaded under is in `loaded`.
        case here
        case other(address: String, learned: UInt64)
    }

    let leases: PostgresLeases
    private let known = Mutex<[String: Known]>([:])
    /// The epoch each document held here was loaded under: kept when `known` is wiped after a
    /// lapsed heartbeat, so that taking a lease back at the same epoch keeps the copy (nobody
    /// else committed), and a new epoch loads it again.
    private let loaded = Mutex<[String: Int]>([:])
    /// The live nodes as the last heartbeat read them, on the balancer's ring.
    private let members = Mutex<Members?>(nil)

    private struct Members {
        var ring: ConsistentHashRing
        var nodes: [String: String]
        /// When the set last changed (monotonic ns).
        var since: UInt64
    }
    /// When the last heartbeat that committed began (monotonic ns); 0 before the first.
    private let lastBeat = Mutex<UInt64>(0)
    private let queue = DispatchQueue(label: "tandem-leases")
    /// Loads a document this node just took (replacing a copy from an earlier epoch).
    private let load: @Sendable (_ id: String) throws -> Void

    /// How long what another node holds is believed without asking again.
    static let otherHeldNanoseconds: UInt64 = 1_000_000_000

    init(leases: PostgresLeases, load: @escaping @Sendable (_ id: String) throws -> Void) {
        self.leases = leases
        self.load = load
    }

    /// Where `id` goes, from what this node knows; nil when it must ask (`place`).
    func cached(_ id: String) -> Placement? {
        let now = Cluster.monotonicNow()
        guard heartbeatFresh(now: now) else { return nil }
        return known.withLock { known -> Placement? in
            switch known[id] {
            case .here?: return .here
            case .other(let address, let learned)? where now &- learned < Self.otherHeldNanoseconds: return .other(address: address)
            default: return nil
            }
        }
    }

    /// Reads (or takes, if no live node holds it) `id`'s lease, loads the document when it
    /// was just taken, and calls `then` with where it goes, on the leases' queue.
    func place(_ id: String, then: @escaping @Sendable (Result<Placement, StoreError>) -> Void) {
        queue.async { [self] in then(placeNow(id)) }
    }

    /// A new document's lease, taken before it is stored (its writes are fenced like any
    /// other): nil once held, else why not.
    func claim(_ id: String, then: @escaping @Sendable (StoreError?) -> Void) {
        queue.async { [self] in
            do throws(StoreError) {
                switch try leases.acquire(id) {
                case .this(let epoch):
                    loaded.withLock { $0[id] = epoch }
                    known.withLock { $0[id] = .here }
                    then(nil)
                case .other(_, let address, _):
                    known.withLock { $0[id] = .other(address: address, learned: Cluster.monotonicNow()) }
                    then(.conflict("document \(id) is held by another node"))
                }
            } catch {
                then(error)
            }
        }
    }

    // MARK: Following the balancer's hash

    /// Reads the live nodes (after a heartbeat), on the heartbeat's thread.
    func refreshMembers() {
        guard let live = try? leases.liveNodes() else { return }
        let addresses = live.map(\.address).sorted()
        let nodes = Dictionary(live.map { ($0.address, $0.node) }, uniquingKeysWith: { a, _ in a })
        members.withLock { m in
            guard m?.ring.servers != addresses else { return }
            m = Members(ring: ConsistentHashRing(servers: addresses), nodes: nodes, since: Cluster.monotonicNow())
        }
    }

    /// The live node `id` hashes to on the ring nginx's `hash … consistent` builds over the
    /// same addresses: where the balancer sends its requests. Nil before the first heartbeat.
    func home(of id: String) -> (address: String, node: String)? {
        members.withLock { m in
            guard let m, let address = m.ring.server(for: id), let node = m.nodes[address] else { return nil }
            return (address, node)
        }
    }

    /// Documents held here whose home is another node, once the live nodes have not changed
    /// for `settled` seconds (a node starting or stopping moves nothing back and forth).
    func misplaced(from address: String, settled: Double, limit: Int) -> [(id: String, node: String)] {
        let stable = members.withLock { m in m.map { Cluster.monotonicNow() &- $0.since >= UInt64(settled * 1e9) } ?? false }
        guard stable else { return [] }
        let held = known.withLock { k in k.compactMap { id, known -> String? in if case .here = known { id } else { nil } } }
        var out: [(id: String, node: String)] = []
        for id in held.sorted() where out.count < limit {
            if let home = home(of: id), home.address != address { out.append((id, home.node)) }
        }
        return out
    }

    /// Gives `id`'s lease to `node` (its home, reached at `address`): false if the lease stayed.
    func handOver(_ id: String, to node: String, address: String) -> Bool {
        guard (try? leases.handOver(id, to: node)) == true else { return false }
        _ = loaded.withLock { $0.removeValue(forKey: id) }
        known.withLock { $0[id] = .other(address: address, learned: Cluster.monotonicNow()) }
        return true
    }

    /// This node's write to `id` was fenced off, or its holder did not answer: ask again next time.
    func forget(_ id: String) {
        _ = known.withLock { $0.removeValue(forKey: id) }
    }

    /// The document left this node's memory (moved, or its lease lost): loaded again if it
    /// comes back.
    func dropped(_ id: String) {
        forget(id)
        _ = loaded.withLock { $0.removeValue(forKey: id) }
    }

    /// The document was deleted: its lease goes, so its id is free on every node.
    func deleted(_ id: String) {
        dropped(id)
        queue.async { [leases] in try? leases.release(id) }
    }

    /// Where the others reach this node, once it beat.
    private let address = Mutex<String?>(nil)

    /// Whether `id`'s home is this node; nil before the first heartbeat.
    func isHome(_ id: String) -> Bool? {
        guard let address = address.withLock({ $0 }), let home = home(of: id) else { return nil }
        return home.address == address
    }

    /// Marks this node alive (`PostgresLeases.heartbeat`); false when the database did not take it.
    @discardableResult
    func heartbeat(address: String) -> Bool {
        self.address.withLock { $0 = address }
        let started = Cluster.monotonicNow()
        do {
            try leases.heartbeat(address: address)
            let ttl = UInt64(leases.ttl * 1e9)
            let lapsed = lastBeat.withLock { beat -> Bool in
                defer { beat = max(beat, started) }
                return beat != 0 && started &- beat >= ttl
            }
            // Away longer than a lease lives (paused, cut off): any lease may have moved.
            if lapsed { known.withLock { $0.removeAll() } }
            return true
        } catch {
            return false
        }
    }

    /// This node's leases are given up (a graceful shutdown): the others take them at once.
    func leave() {
        known.withLock { $0.removeAll() }
        loaded.withLock { $0.removeAll() }
        try? leases.leave()
    }

    private func heartbeatFresh(now: UInt64) -> Bool {
        let beat = lastBeat.withLock { $0 }
        return beat != 0 && now &- beat < UInt64(leases.ttl * 1e9)
    }

    private func placeNow(_ id: String) -> Result<Placement, StoreError> {
        do {
            // A lease is taken only for a document that exists: requests for unknown ids
            // (answered 404 here) leave no rows behind.
            if try leases.holder(of: id) == nil, try leases.store.document(id) == nil {
                forget(id)
                return .success(.here)
            }
            switch try leases.acquire(id) {
            case .this(let epoch):
                if loaded.withLock({ $0[id] }) != epoch {
                    do {
                        try load(id)
                    } catch let error as StoreError {
                        return .failure(error)
                    } catch {
                        return .failure(.io("document \(id) could not be loaded: \(error)"))
                    }
                }
                loaded.withLock { $0[id] = epoch }
                known.withLock { $0[id] = .here }
                return .success(.here)
            case .other(_, let address, _):
                known.withLock { $0[id] = .other(address: address, learned: Cluster.monotonicNow()) }
                return .success(.other(address: address))
            }
        } catch {
            return .failure(error)
        }
    }
}
