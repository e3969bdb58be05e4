import Foundation

/// What one committed unit touched, as the cluster's feed names it: another node that reads
/// it knows what to catch up on (docs/scale-out.md). The feed says only *what* changed; the
/// tables say how.
public struct ClusterEntry: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A document's change log grew.
        case changes = "c"
        /// A document's pending undo-manager events (`meta` "journal:<id>") changed.
        case journal = "j"
        /// A document was created.
        case created = "n"
        /// A document's title, times or metadata (access rules among them) changed.
        case updated = "m"
        /// A document was deleted.
        case deleted = "d"
        /// A version of a document was saved.
        case version = "v"
        case session = "s"
        case pasteboard = "p"
        /// A session's selection in a document (`meta` "selection:<document>/<session>"); the
        /// key is "<document>/<session>".
        case selection = "x"
    }

    public var seq: Int
    /// The node that committed it (`PostgresStore.nodeID`).
    public var node: String
    public var kind: Kind
    /// A document id, session id or pasteboard name.
    public var key: String

    public init(seq: Int, node: String, kind: Kind, key: String) {
        self.seq = seq
        self.node = node
        self.kind = kind
        self.key = key
    }

    /// What a unit of writes touches, once each, in order. Where documents have owners
    /// (`documentsFollowed` false: leases are on), no other node takes in a document's changes,
    /// journal, selections or versions, so those are not fed: a unit of edits touches nothing,
    /// and commits of different nodes do not meet on the clock row. A document's creation,
    /// metadata and deletion still are (every node knows every document's links).
    static func touched(by writes: [StoreWrite], documentsFollowed: Bool = true) -> [(Kind, String)] {
        var seen = Set<String>()
        var out: [(Kind, String)] = []
        func add(_ kind: Kind, _ key: String) {
            if !documentsFollowed, [.changes, .journal, .selection, .version].contains(kind) { return }
            if seen.insert(kind.rawValue + key).inserted { out.append((kind, key)) }
        }
        for write in writes {
            switch write {
            case .append(let changes): for c in changes { add(.changes, c.documentID) }
            case .createDocument(let d, _): add(.created, d.id)
            case .updateDocument(let d): add(.updated, d.id)
            case .deleteDocument(let id): add(.deleted, id)
            case .addVersion(let v): add(.version, v.documentID)
            case .removeCheckpoint(let id, _), .removeVersion(let id, _), .nameVersion(let id, _, _): add(.version, id)
            case .upsertSession(let s): add(.session, s.id)
            case .deleteSession(let id): add(.session, id)
            case .upsertPasteboard(let p): add(.pasteboard, p.name)
            case .deletePasteboard(let name): add(.pasteboard, name)
            case .setMeta(let key, _) where key.hasPrefix(journalPrefix): add(.journal, String(key.dropFirst(journalPrefix.count)))
            case .setMeta(let key, _) where key.hasPrefix(selectionPrefix): add(.selection, String(key.dropFirst(selectionPrefix.count)))
            // Users are read from the store when someone signs in, and the nodes learn of a removed
            // one from the `users` meta generation (as from a process that is no node).
            // Lists of opened documents are read from the store by each `GET /documents`.
            case .setMeta, .writeSnapshot, .trimChanges, .archive, .trimArchive, .upsertUser, .deleteUser,
                 .recordOpened, .forgetOpened: break
            }
        }
        return out
    }

    /// The meta key prefix of a document's pending journal (the server's `pendingKey`).
    public static let journalPrefix = "journal:"
    /// The meta key prefix of a shared selection.
    public static let selectionPrefix = "selection:"
}

extension PostgresStore {
    // MARK: Writing the feed

    /// Appends the feed entries of a unit, inside its transaction and as its last statement:
    /// the clock row's lock is held until COMMIT, so no unit with a smaller seq commits after
    /// one with a larger (readers never skip an entry), and the notification goes out with
    /// the commit. Nothing is written for a unit that touched nothing. Returns the unit's
    /// newest seq (nil when it touched nothing).
    @discardableResult
    static func logCluster(_ touched: [(ClusterEntry.Kind, String)], node: String, channel: String,
                           in c: PGConnection) throws(StoreError) -> Int? {
        guard !touched.isEmpty else { return nil }
        // The outer query answers the newest seq and rings the doorbell once.
        return try c.query(logSQL, feedParameters(touched, node: node, channel: channel)).int(0, 0)
    }

    private static let logSQL = "WITH \(feedEntries) SELECT seq, pg_notify($6, $2) FROM clock"

    /// `logCluster` with the unit's trailing appends in the same statement (a unit of edits:
    /// the revisions' compare-and-set, the runs and the feed in one round trip, not three).
    /// The clock row is still written by the unit's last statement.
    static func logCluster(_ touched: [(ClusterEntry.Kind, String)], appending plan: AppendPlan, node: String, channel: String,
                           in c: PGConnection) throws(StoreError) -> Int {
        let result = try c.query(logAppendingSQL, feedParameters(touched, node: node, channel: channel) + [
            .textArray(plan.ids), .intArray(plan.previous), .intArray(plan.lasts),
            .textArray(plan.runDocuments), .intArray(plan.runLasts), .intArray(plan.runFirsts), .bytesArray(plan.payloads),
        ])
        let moved = result.int(0, 1)
        if moved != plan.ids.count { throw try plan.notNext(moved: moved, in: c) }
        return result.int(0, 0)
    }

    private static let logAppendingSQL = """
            WITH moved AS (
                UPDATE documents AS d SET revision = v.last
                FROM unnest($7::text[], $8::int8[], $9::int8[]) AS v(id, previous, last)
                WHERE d.id = ANY($7::text[]) AND d.id = v.id AND d.revision = v.previous
                RETURNING d.id
            ),
            runs AS (
                INSERT INTO change_runs (document, last, first, payload)
                SELECT * FROM unnest($10::text[], $11::int8[], $12::int8[], $13::bytea[])
            ),
            \(feedEntries)
            SELECT seq, (SELECT count(*) FROM moved), pg_notify($6, $2) FROM clock
            """

    /// The clock's bump and the entries after it (`clock`, `logged`), over `feedParameters`'
    /// $1–$6. The INSERT runs to completion though the outer query does not read it.
    private static let feedEntries = """
        clock AS (UPDATE cluster_clock SET seq = seq + $1 WHERE id = 1 RETURNING seq),
        logged AS (
            INSERT INTO cluster_log (seq, node, kind, key, time)
            SELECT clock.seq - $1 + t.n, $2, t.kind, t.key, $3
            FROM clock, unnest($4::text[], $5::text[]) WITH ORDINALITY AS t(kind, key, n)
        )
        """

    private static func feedParameters(_ touched: [(ClusterEntry.Kind, String)], node: String, channel: String) -> [PGValue] {
        [.int(touched.count), .text(node), .double(Date().timeIntervalSince1970),
         .text(arrayLiteral(touched.map(\.0.rawValue))), .text(arrayLiteral(touched.map(\.1))), .text(channel)]
    }

    /// A PostgreSQL array literal of strings, each quoted and escaped.
    static func arrayLiteral(_ items: [String]) -> String {
        var out = "{"
        for (i, item) in items.enumerated() {
            if i > 0 { out += "," }
            out += "\""
            for ch in item.unicodeScalars {
                if ch == "\"" || ch == "\\" { out += "\\" }
                out.unicodeScalars.append(ch)
            }
            out += "\""
        }
        return out + "}"
    }

    // MARK: Reading the feed

    /// The newest committed seq (0 before any).
    public func clusterHead() throws(StoreError) -> Int {
        try read { c throws(StoreError) in try c.query("SELECT seq FROM cluster_clock WHERE id = 1").int(0, 0) }
    }

    /// Entries with seq > `after`, oldest first, at most `limit`; and the oldest seq still
    /// kept, so a reader can tell whether it missed entries that were pruned.
    public func clusterEntries(after: Int, limit: Int) throws(StoreError) -> (entries: [ClusterEntry], oldestKept: Int?) {
        try read { c throws(StoreError) in
            let rows = try c.query("""
                SELECT seq, node, kind, key, (SELECT min(seq) FROM cluster_log) FROM cluster_log
                WHERE seq > $1 ORDER BY seq LIMIT $2
                """, [.int(after), .int(limit)])
            var entries: [ClusterEntry] = []
            entries.reserveCapacity(rows.count)
            var oldest: Int?
            for row in 0..<rows.count {
                if oldest == nil, !rows.isNull(row, 4) { oldest = rows.int(row, 4) }
                guard let kind = ClusterEntry.Kind(rawValue: rows.text(row, 2)) else { continue }
                entries.append(ClusterEntry(seq: rows.int(row, 0), node: rows.text(row, 1), kind: kind, key: rows.text(row, 3)))
            }
            return (entries, oldest)
        }
    }

    /// Drops feed entries older than `seconds`: a node that was away longer reloads everything.
    public func pruneClusterLog(olderThan seconds: Double) throws(StoreError) {
        _ = try read { c throws(StoreError) in
            try c.query("DELETE FROM cluster_log WHERE time < $1 AND seq < (SELECT seq FROM cluster_clock WHERE id = 1)",
                        [.double(Date().timeIntervalSince1970 - seconds)])
        }
    }

    /// One session as stored, nil if absent.
    public func session(_ id: String) throws(StoreError) -> StoredSession? {
        try read { c throws(StoreError) in
            try Self.sessions(in: c, where: "WHERE id = $1", [.text(id)]).first
        }
    }

    /// One pasteboard as stored, nil if absent.
    public func pasteboard(_ name: String) throws(StoreError) -> StoredPasteboard? {
        try read { c throws(StoreError) in
            try Self.pasteboards(in: c, where: "WHERE name = $1", [.text(name)]).first
        }
    }

    /// A document with its snapshot and the changes after it, as `loadAll` gives it; nil if absent.
    public func loadDocument(_ id: String) throws(StoreError) -> LoadedDocument? {
        try read { c throws(StoreError) in
            try c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let rows = try c.query("SELECT id, title, created, modified, metadata, revision FROM documents WHERE id = $1", [.text(id)])
            guard rows.count > 0 else {
                try c.execute("COMMIT")
                return nil
            }
            let document = Self.document(rows, 0)
            let s = try c.query("SELECT revision, payload FROM snapshots WHERE document = $1", [.text(id)])
            let snapshot = s.count > 0 ? StoredSnapshot(documentID: id, revision: s.int(0, 0), payload: s.bytes(0, 1)) : nil
            let tail = try Self.changes(document: id, after: snapshot?.revision ?? 0, through: Int.max, in: c)
            try c.execute("COMMIT")
            return LoadedDocument(document: document, revision: rows.int(0, 5), snapshot: snapshot, tail: tail)
        }
    }

    /// A document's stored revision and pending journal (`meta` under `journalPrefix + id`),
    /// nil if absent.
    public func documentHead(_ id: String, journalPrefix: String) throws(StoreError) -> SequencedTransaction.Head? {
        try read { c throws(StoreError) in
            let rows = try c.query("""
                SELECT d.revision, m.value FROM documents d LEFT JOIN meta m ON m.key = $2 || d.id WHERE d.id = $1
                """, [.text(id), .text(journalPrefix)])
            guard rows.count > 0 else { return nil }
            return SequencedTransaction.Head(revision: rows.int(0, 0), journal: rows.isNull(0, 1) ? nil : rows.bytes(0, 1))
        }
    }

    /// What a node catching up on several documents reads at once: each one's head (absent
    /// when deleted) and its stored changes after the revision the node holds. Two
    /// statements for any number of documents. (LATERAL makes it one index range per
    /// document; a plain join on the unnested list may be planned as a scan of the whole log.)
    public func catchUpReads(_ wanted: [(id: String, after: Int)], journalPrefix: String) throws(StoreError)
        -> (heads: [String: SequencedTransaction.Head], changes: [String: [StoredChange]]) {
        guard !wanted.isEmpty else { return ([:], [:]) }
        let ids = Self.arrayLiteral(wanted.map(\.id))
        return try read { c throws(StoreError) in
            let h = try c.query("""
                SELECT d.id, d.revision, m.value FROM documents d LEFT JOIN meta m ON m.key = $2 || d.id
                WHERE d.id = ANY($1::text[])
                """, [.text(ids), .text(journalPrefix)])
            var heads: [String: SequencedTransaction.Head] = [:]
            for row in 0..<h.count {
                heads[h.text(row, 0)] = .init(revision: h.int(row, 1), journal: h.isNull(row, 2) ? nil : h.bytes(row, 2))
            }
            let after = Dictionary(wanted.map { ($0.id, $0.after) }, uniquingKeysWith: min)
            let behind = wanted.filter { w in heads[w.id].map { $0.revision > w.after } ?? false }
            guard !behind.isEmpty else { return (heads, [:]) }
            let r = try c.query("""
                SELECT w.id, r.first, r.last, r.payload
                FROM unnest($1::text[], $2::bigint[]) AS w(id, after)
                CROSS JOIN LATERAL (
                    SELECT first, last, payload FROM change_runs
                    WHERE document = w.id AND last > w.after ORDER BY last
                ) r
                """, [.text(Self.arrayLiteral(behind.map(\.id))), .text("{" + behind.map { String($0.after) }.joined(separator: ",") + "}")])
            var changes: [String: [StoredChange]] = [:]
            for row in 0..<r.count {
                let id = r.text(row, 0)
                try ChangeRun.decode(r.bytes(row, 3), document: id, first: r.int(row, 1), last: r.int(row, 2),
                                     wanted: (after[id]! + 1)...Int.max, into: &changes[id, default: []])
            }
            return (heads, changes)
        }
    }

    /// The channel a store's units notify on: one per schema, so stores sharing a database
    /// in other schemas do not wake each other.
    static func channel(schema: String?) -> String {
        let name = "tandem:" + (schema ?? "public")
        // NOTIFY channel names are identifiers: at most 63 bytes.
        guard name.utf8.count > 63 else { return name }
        // FNV-1a: the same on every node (Swift's hashValue is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "tandem:" + String(hash, radix: 16)
    }
}
