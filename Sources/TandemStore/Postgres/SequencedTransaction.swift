/// The transaction a sequenced unit runs in (`PostgresStore.sequence`): it holds the row locks
/// on the heads of its documents, taken in id order, so no other node commits a change to them
/// until it ends, and one total order of changes per document holds across nodes without
/// retries. Reads through it see everything committed before the locks were granted.
///
/// Valid only during the body it is handed to, on the writer's thread.
public final class SequencedTransaction {
    let connection: PGConnection

    init(connection: PGConnection) {
        self.connection = connection
    }

    /// A locked document's stored revision and pending journal (`meta` under
    /// `journalPrefix + id`).
    public struct Head: Sendable {
        public var revision: Int
        public var journal: [UInt8]?
    }

    /// Locks the head rows of `documents` in id order (`SELECT … FOR UPDATE`: two nodes never
    /// deadlock) until the unit ends; absent documents are missing from the answer.
    public func lockHeads(_ documents: [String], journalPrefix: String) throws(StoreError) -> [String: Head] {
        let ids = PostgresStore.arrayLiteral(documents.sorted())
        try connection.query("SELECT id FROM documents WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE", [.text(ids)])
        // Read in a statement of its own, after the locks are granted: a row a locking
        // statement waited for is re-read, but what it joined is still as of its start (the
        // other node's pending journal, committed with the lock's release, would be missed).
        let rows = try connection.query("""
            SELECT d.id, d.revision, m.value FROM documents d LEFT JOIN meta m ON m.key = $2 || d.id
            WHERE d.id = ANY($1::text[])
            """, [.text(ids), .text(journalPrefix)])
        var heads: [String: Head] = [:]
        for row in 0..<rows.count {
            heads[rows.text(row, 0)] = Head(revision: rows.int(row, 1), journal: rows.isNull(row, 2) ? nil : rows.bytes(row, 2))
        }
        return heads
    }

    /// Stored changes of `document` after `after`, oldest first (trimmed ones are gone).
    public func changes(document: String, after: Int) throws(StoreError) -> [StoredChange] {
        try PostgresStore.changes(document: document, after: after, through: Int.max, in: connection)
    }

    /// The document's versions, as a save needs to know them.
    public func versionLedger(document: String) throws(StoreError) -> VersionLedger {
        try PostgresStore.versionLedger(document: document, in: connection)
    }

    public func meta(_ key: String) throws(StoreError) -> [UInt8]? {
        try PostgresStore.meta(key, in: connection)
    }
}

extension PostgresStore {
    /// Body of a sequenced unit: catches up and applies under the locks, and returns the writes
    /// to store in the same transaction.
    public typealias SequencedBody = @Sendable (SequencedTransaction) throws(StoreError) -> [StoreWrite]

    /// Runs `body` on the writer, in a transaction of its own in which it locks the heads of
    /// the documents it changes (`SequencedTransaction.lockHeads`), then stores what it
    /// returns and commits. `completion` runs after the commit, or with the failure (nothing
    /// of the unit stored), on the writer's thread like `submit`'s.
    public func sequence(_ body: @escaping SequencedBody, completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        writer.submit(.init(changeCount: 0, work: .sequenced(body), completion: completion))
    }

    /// The sequenced unit's statements, on the writer's connection inside its transaction.
    /// Returns the changes it appended and its newest feed seq.
    static func runSequenced(_ body: SequencedBody, node: String, channel: String,
                             in c: PGConnection) throws(StoreError) -> (appended: Int, seq: Int?) {
        let writes = try body(SequencedTransaction(connection: c))
        // The appends at the end (a unit of edits: usually all it writes) go with the feed's
        // statement; the writes before them run first, consecutive appends as one run.
        let trailing = writes.reversed().prefix(while: \.isAppend).count
        try MergedAppends.run(Array(writes.dropLast(trailing)), writes: { [$0] },
                              insert: { (changes) throws(StoreError) in try insert(changes, in: c) },
                              run: { (write) throws(StoreError) in try run(write, in: c) })
        var appended: [StoredChange] = []
        for case .append(let changes) in writes.suffix(trailing) { appended += changes }
        let touched = ClusterEntry.touched(by: writes)
        let seq = appended.isEmpty
            ? try logCluster(touched, node: node, channel: channel, in: c)
            : try logCluster(touched, appending: try AppendPlan(appended, in: c), node: node, channel: channel, in: c)
        return (writes.reduce(0) { $0 + $1.changeCount }, seq)
    }
}
