import Foundation
import Synchronization

/// Document ownership among the nodes of a cluster (docs/scale-out.md): each open document has
/// one owner node at a time, recorded in `document_leases` with an epoch that grows with every
/// change of owner. A node is alive while its `cluster_nodes` row has not expired, on
/// PostgreSQL's clock (never a node's own), and renews it with `heartbeat`.
///
/// Fencing: once a store's leases are made, every write its writer commits that names a
/// document checks, in the same transaction and under a share lock on the lease row, that this
/// node holds the document's lease at the epoch it acquired. A node that lost a lease (paused,
/// partitioned, or handed over) can never commit to that document again; its writes fail with
/// `StoreError.leaseLost`, and only they. A takeover's update waits for the share lock, so it
/// comes after every commit made under the old epoch.
///
/// Leases have connections of their own, apart from the readers requests share: one for the
/// heartbeat (and the membership it reads), one for taking leases. A heartbeat queued behind
/// reads stuck on a locked table would let this node's leases lapse while it is busy.
///
/// Not reentrant, like the rest of the store: every method runs its statements and returns.
public final class PostgresLeases: Sendable {
    public let store: PostgresStore
    /// How long a node stays alive after its last heartbeat, in seconds.
    public let ttl: Double
    private let beats: PostgresReaders
    private let claims: PostgresReaders

    /// Who holds a document's lease.
    public enum Holder: Sendable, Equatable {
        /// This node, under `epoch`.
        case this(epoch: Int)
        /// Another node, alive, reached at `address`.
        case other(node: String, address: String, epoch: Int)
    }

    /// A live node and where the others reach it.
    public struct Node: Sendable, Equatable {
        public var node: String
        public var address: String
    }

    /// Turns fencing on for `store`'s writes: from now on it writes only documents whose lease
    /// it holds.
    public init(store: PostgresStore, ttl: Double) {
        self.store = store
        self.ttl = ttl
        beats = PostgresReaders(conninfo: store.url, schema: store.schema, limit: 1)
        claims = PostgresReaders(conninfo: store.url, schema: store.schema, limit: 1)
        store.writer.fence.enable()
    }

    deinit {
        beats.close()
        claims.close()
    }

    private func beat<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try store.guardOpen()
        return try beats.read(body)
    }

    private func claim<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try store.guardOpen()
        return try claims.read(body)
    }

    /// Marks this node alive until `ttl` from now (PostgreSQL's clock), reached at `address`.
    public func heartbeat(address: String) throws(StoreError) {
        let node = store.nodeID, ttl = ttl
        _ = try beat { c throws(StoreError) in
            try c.query("""
                INSERT INTO cluster_nodes (node, address, expires) VALUES ($1, $2, now() + make_interval(secs => $3))
                ON CONFLICT (node) DO UPDATE SET address = excluded.address, expires = excluded.expires
                """, [.text(node), .text(address), .double(ttl)])
        }
    }

    /// The secret the nodes on this database present to each other (a node's own requests
    /// to another, such as the one stream of a document it relays): made by the first node
    /// that asks, from the system's secure random source.
    public func clusterKey() throws(StoreError) -> String {
        var random = SystemRandomNumberGenerator()
        let fresh = (0..<4).map { _ in
            let word = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - word.count) + word
        }.joined()
        return try claim { c throws(StoreError) in
            try c.query("INSERT INTO cluster_secret (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", [.text(fresh)])
            return try c.query("SELECT key FROM cluster_secret WHERE id = 1").text(0, 0)
        }
    }

    /// The nodes alive now, by name.
    public func liveNodes() throws(StoreError) -> [Node] {
        try beat { c throws(StoreError) in
            let rows = try c.query("SELECT node, address FROM cluster_nodes WHERE expires > now() ORDER BY node")
            return (0..<rows.count).map { Node(node: rows.text($0, 0), address: rows.text($0, 1)) }
        }
    }

    /// Takes `document`'s lease if nobody alive holds it (or this node does, even with its own
    /// row lapsed: nobody took it meanwhile, so its epoch stands), and answers who holds it
    /// now. A lease taken from another node comes with the next epoch: that node's writes to
    /// the document fail from then on. The caller loads the document from the store after
    /// taking it, as the previous owner's last commits are there.
    public func acquire(_ document: String) throws(StoreError) -> Holder {
        let node = store.nodeID
        let holder = try claim { c throws(StoreError) -> (node: String, address: String, epoch: Int) in
            let taken = try c.query("""
                INSERT INTO document_leases (document, node, epoch) VALUES ($1, $2, 1)
                ON CONFLICT (document) DO UPDATE SET node = excluded.node,
                    epoch = CASE WHEN document_leases.node = excluded.node THEN document_leases.epoch ELSE document_leases.epoch + 1 END
                WHERE document_leases.node = excluded.node OR NOT EXISTS (
                    SELECT 1 FROM cluster_nodes n WHERE n.node = document_leases.node AND n.expires > now())
                RETURNING epoch
                """, [.text(document), .text(node)])
            if taken.count > 0 { return (node, "", taken.int(0, 0)) }
            return try Self.holder(of: document, in: c) ?? (node, "", 0)
        }
        if holder.node == node {
            store.writer.fence.hold(document, epoch: holder.epoch)
            return .this(epoch: holder.epoch)
        }
        store.writer.fence.release(document)
        return .other(node: holder.node, address: holder.address, epoch: holder.epoch)
    }

    /// Who holds `document`'s lease, without taking it; nil when nobody alive does.
    public func holder(of document: String) throws(StoreError) -> Holder? {
        let node = store.nodeID
        guard let h = try claim({ c throws(StoreError) in try Self.holder(of: document, in: c) }) else { return nil }
        if h.node == node { return .this(epoch: h.epoch) }
        return .other(node: h.node, address: h.address, epoch: h.epoch)
    }

    /// Gives `document`'s lease to `successor` (a graceful shutdown), under the next epoch: this
    /// node's writes to it fail from then on. Only from the holder: false if this node no
    /// longer held it.
    @discardableResult
    public func handOver(_ document: String, to successor: String) throws(StoreError) -> Bool {
        let node = store.nodeID
        store.writer.fence.release(document)
        return try beat { c throws(StoreError) in
            try c.query("""
                UPDATE document_leases SET node = $3, epoch = epoch + 1 WHERE document = $1 AND node = $2
                RETURNING epoch
                """, [.text(document), .text(node), .text(successor)]).count > 0
        }
    }

    /// Gives up `document`'s lease (it was deleted): its id is free for a new document on any
    /// node. Only from the holder.
    public func release(_ document: String) throws(StoreError) {
        let node = store.nodeID
        store.writer.fence.release(document)
        _ = try claim { c throws(StoreError) in
            try c.query("DELETE FROM document_leases WHERE document = $1 AND node = $2", [.text(document), .text(node)])
        }
    }

    /// This node leaves the cluster: its row goes, so its leases may be taken at once.
    public func leave() throws(StoreError) {
        let node = store.nodeID
        store.writer.fence.releaseAll()
        _ = try beat { c throws(StoreError) in
            try c.query("DELETE FROM cluster_nodes WHERE node = $1", [.text(node)])
        }
    }

    /// The documents this node holds the lease of (as it acquired them).
    public var held: [String: Int] { store.writer.fence.held }

    static func holder(of document: String, in c: PGConnection) throws(StoreError) -> (node: String, address: String, epoch: Int)? {
        let rows = try c.query("""
            SELECT l.node, n.address, l.epoch FROM document_leases l JOIN cluster_nodes n ON n.node = l.node
            WHERE l.document = $1 AND n.expires > now()
            """, [.text(document)])
        guard rows.count > 0 else { return nil }
        return (rows.text(0, 0), rows.text(0, 1), rows.int(0, 2))
    }
}

/// The writer's side of the leases: the epoch of each document this node holds, checked by
/// every batch that writes a document once enabled (`PostgresLeases`).
final class LeaseFence: Sendable {
    private struct State {
        var enabled = false
        var epochs: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func enable() { state.withLock { $0.enabled = true } }
    var isEnabled: Bool { state.withLock { $0.enabled } }
    func hold(_ document: String, epoch: Int) { state.withLock { $0.epochs[document] = epoch } }
    func release(_ document: String) { _ = state.withLock { $0.epochs.removeValue(forKey: document) } }
    func releaseAll() { state.withLock { $0.epochs.removeAll() } }
    var held: [String: Int] { state.withLock { $0.epochs } }

    /// The jobs of `batch` that may not commit, by index: those that write a document whose
    /// lease this node does not hold at the epoch it acquired. Run inside the batch's
    /// transaction: the share locks keep a takeover waiting until the transaction ends.
    func refusals(_ batch: [PostgresWriter.Job], node: String, in c: PGConnection) throws(StoreError) -> [Int: StoreError] {
        let (enabled, epochs) = state.withLock { ($0.enabled, $0.epochs) }
        guard enabled else { return [:] }
        var named: [Set<String>] = []
        var all = Set<String>()
        for job in batch {
            var ids = Set<String>()
            for write in job.writes { write.addOwnedDocuments(to: &ids) }
            named.append(ids)
            all.formUnion(ids)
        }
        guard !all.isEmpty else { return [:] }
        let rows = try c.query("""
            SELECT document, epoch FROM document_leases WHERE document = ANY($1::text[]) AND node = $2
            ORDER BY document FOR SHARE
            """, [.text(PostgresStore.arrayLiteral(all.sorted())), .text(node)])
        var current: [String: Int] = [:]
        for row in 0..<rows.count { current[rows.text(row, 0)] = rows.int(row, 1) }
        var refused: [Int: StoreError] = [:]
        for (i, ids) in named.enumerated() {
            if let lost = ids.sorted().first(where: { epochs[$0] == nil || current[$0] != epochs[$0] }) {
                refused[i] = .leaseLost(document: lost)
            }
        }
        return refused
    }
}

extension StoreWrite {
    /// The documents whose owner alone may make this write: all it names but the record that a
    /// person opened one, which any node may keep.
    func addOwnedDocuments(to ids: inout Set<String>) {
        if case .recordOpened = self { return }
        addDocuments(to: &ids)
    }
}
