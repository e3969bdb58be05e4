/// A line of a document list read from the store: the row, its revision and its length (nil
/// until known), without the text.
public struct DirectoryEntry: Sendable {
    public var document: StoredDocument
    public var revision: Int
    public var length: Int?
}

/// Reads, on the reader connections.
extension PostgresStore {
    /// Every document's row, revision and length, by id: the lists of a node that holds only
    /// some of the documents (`--cluster leases`).
    public func directory() throws(StoreError) -> [DirectoryEntry] {
        try read { c throws(StoreError) in
            let rows = try c.query("SELECT id, title, created, modified, metadata, revision, length FROM documents ORDER BY id")
            return (0..<rows.count).map { row in
                DirectoryEntry(document: Self.document(rows, row), revision: rows.int(row, 5),
                               length: rows.isNull(row, 6) ? nil : rows.int(row, 6))
            }
        }
    }

    /// One REPEATABLE READ transaction, so the picture is consistent: the documents with
    /// their snapshots, then in one query every run that ends after its document's snapshot.
    public func loadAll() throws(StoreError) -> StoreContents {
        try read { c throws(StoreError) in
            try c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let rows = try c.query("""
                SELECT d.id, d.title, d.created, d.modified, d.metadata, d.revision, s.revision, s.payload
                FROM documents d LEFT JOIN snapshots s ON s.document = d.id
                ORDER BY d.id
                """)
            let runs = try c.query("""
                SELECT r.document, r.first, r.last, r.payload
                FROM change_runs r LEFT JOIN snapshots s ON s.document = r.document
                WHERE r.last > coalesce(s.revision, 0)
                ORDER BY r.document, r.last
                """)
            var tails: [String: [StoredChange]] = [:]
            var after: [String: Int] = [:]
            for row in 0..<rows.count where !rows.isNull(row, 6) { after[rows.text(row, 0)] = rows.int(row, 6) }
            for row in 0..<runs.count {
                let document = runs.text(row, 0)
                let from = (after[document] ?? 0) + 1
                try ChangeRun.decode(runs.bytes(row, 3), document: document, first: runs.int(row, 1), last: runs.int(row, 2),
                                     wanted: from...Int.max, into: &tails[document, default: []])
            }
            var documents: [LoadedDocument] = []
            documents.reserveCapacity(rows.count)
            for row in 0..<rows.count {
                let document = Self.document(rows, row)
                let snapshot = rows.isNull(row, 6) ? nil
                    : StoredSnapshot(documentID: document.id, revision: rows.int(row, 6), payload: rows.bytes(row, 7))
                documents.append(LoadedDocument(document: document, revision: rows.int(row, 5), snapshot: snapshot,
                                                tail: tails[document.id] ?? []))
            }
            var meta: [String: [UInt8]] = [:]
            let metaRows = try c.query("SELECT key, value FROM meta")
            for row in 0..<metaRows.count { meta[metaRows.text(row, 0)] = metaRows.bytes(row, 1) }
            let contents = StoreContents(documents: documents, sessions: try Self.sessions(in: c),
                                         pasteboards: try Self.pasteboards(in: c), meta: meta)
            try c.execute("COMMIT")
            return contents
        }
    }

    public func document(_ id: String) throws(StoreError) -> StoredDocument? {
        try read { c throws(StoreError) in
            let rows = try c.query("SELECT id, title, created, modified, metadata FROM documents WHERE id = $1", [.text(id)])
            return rows.count > 0 ? Self.document(rows, 0) : nil
        }
    }

    public func lastRevision(document: String) throws(StoreError) -> Int {
        try read { c throws(StoreError) in try Self.revision(of: document, in: c) }
    }

    public func changes(document: String, after: Int, through: Int?) throws(StoreError) -> [StoredChange] {
        try read { c throws(StoreError) in
            _ = try Self.revision(of: document, in: c)
            return try Self.changes(document: document, after: after, through: through ?? Int.max, in: c)
        }
    }

    static func changes(document: String, after: Int, through: Int, in c: PGConnection) throws(StoreError) -> [StoredChange] {
        guard after < through else { return [] }
        let rows = try c.query("""
            SELECT first, last, payload FROM change_runs
            WHERE document = $1 AND last > $2 AND first <= $3 ORDER BY last
            """, [.text(document), .int(after), .int(through)])
        var changes: [StoredChange] = []
        for row in 0..<rows.count {
            try ChangeRun.decode(rows.bytes(row, 2), document: document, first: rows.int(row, 0), last: rows.int(row, 1),
                                 wanted: (after + 1)...through, into: &changes)
        }
        return changes
    }

    public func snapshot(document: String) throws(StoreError) -> StoredSnapshot? {
        try read { c throws(StoreError) in
            let rows = try c.query("SELECT revision, payload FROM snapshots WHERE document = $1", [.text(document)])
            return rows.count > 0 ? StoredSnapshot(documentID: document, revision: rows.int(0, 0), payload: rows.bytes(0, 1)) : nil
        }
    }

    public func versions(document: String) throws(StoreError) -> [StoredVersion] {
        try read { c throws(StoreError) in
            let rows = try c.query("""
                SELECT \(Self.versionColumns) FROM versions WHERE document = $1 ORDER BY number
                """, [.text(document)])
            return (0..<rows.count).map { Self.version(rows, $0) }
        }
    }

    public func version(document: String, number: Int) throws(StoreError) -> StoredVersion? {
        try read { c throws(StoreError) in
            let rows = try c.query("""
                SELECT \(Self.versionColumns) FROM versions WHERE document = $1 AND number = $2
                """, [.text(document), .int(number)])
            return rows.count > 0 ? Self.version(rows, 0) : nil
        }
    }

    public func versionSummaries(document: String) throws(StoreError) -> [StoredVersion.Summary] {
        try read { c throws(StoreError) in
            // The text only of versions stored before their length was.
            let rows = try c.query("""
                SELECT number, revision, time, length, name, automatic, since, CASE WHEN length IS NULL THEN text END
                FROM versions WHERE document = $1 ORDER BY number
                """, [.text(document)])
            return (0..<rows.count).map { row in
                StoredVersion.Summary(number: rows.int(row, 0), revision: rows.int(row, 1), time: rows.double(row, 2),
                                      length: rows.isNull(row, 3) ? rows.text(row, 7).utf16.count : rows.int(row, 3),
                                      name: rows.optionalText(row, 4), automatic: rows.bool(row, 5), since: rows.optionalDouble(row, 6))
            }
        }
    }

    public func versionLedger(document: String) throws(StoreError) -> VersionLedger {
        try read { c throws(StoreError) in try Self.versionLedger(document: document, in: c) }
    }

    static func versionLedger(document: String, in c: PGConnection) throws(StoreError) -> VersionLedger {
        let rows = try c.query("""
            SELECT number, automatic, since, octet_length(text) + coalesce(octet_length(authorship), 0)
            FROM versions WHERE document = $1 ORDER BY number
            """, [.text(document)])
        return VersionLedger((0..<rows.count).map { row in
            VersionLedger.Entry(number: rows.int(row, 0), automatic: rows.bool(row, 1), since: rows.optionalDouble(row, 2),
                                bytes: VersionLedger.rowBytes + rows.int(row, 3))
        })
    }

    public func sessions() throws(StoreError) -> [StoredSession] {
        try read { c throws(StoreError) in try Self.sessions(in: c) }
    }

    public func pasteboards() throws(StoreError) -> [StoredPasteboard] {
        try read { c throws(StoreError) in try Self.pasteboards(in: c) }
    }

    public func meta(_ key: String) throws(StoreError) -> [UInt8]? {
        try read { c throws(StoreError) in try Self.meta(key, in: c) }
    }

    static func meta(_ key: String, in c: PGConnection) throws(StoreError) -> [UInt8]? {
        let rows = try c.query("SELECT value FROM meta WHERE key = $1", [.text(key)])
        return rows.count > 0 ? rows.bytes(0, 0) : nil
    }

    // MARK: Rows

    static func sessions(in c: PGConnection, where filter: String = "", _ parameters: [PGValue] = []) throws(StoreError) -> [StoredSession] {
        let rows = try c.query("SELECT id, token_hash, name, color, created, last_seen, user_id, grants, expires FROM sessions \(filter) ORDER BY id", parameters)
        return (0..<rows.count).map { row in
            StoredSession(id: rows.text(row, 0), tokenHash: rows.bytes(row, 1), name: rows.text(row, 2),
                          color: rows.text(row, 3), created: rows.double(row, 4), lastSeen: rows.double(row, 5),
                          userID: rows.optionalText(row, 6), grants: rows.optionalText(row, 7), expires: rows.optionalDouble(row, 8))
        }
    }

    static func pasteboards(in c: PGConnection, where filter: String = "", _ parameters: [PGValue] = []) throws(StoreError) -> [StoredPasteboard] {
        let rows = try c.query("SELECT name, owner, persistent, change_count, payload, shared, shared_with FROM pasteboards \(filter) ORDER BY name", parameters)
        return (0..<rows.count).map { row in
            StoredPasteboard(name: rows.text(row, 0), owner: rows.optionalText(row, 1), persistent: rows.bool(row, 2),
                             changeCount: rows.int(row, 3), payload: rows.bytes(row, 4), shared: rows.bool(row, 5),
                             sharedWith: StoredPasteboard.sharedWith(column: rows.optionalText(row, 6)))
        }
    }

    /// A document from columns id, title, created, modified, metadata.
    static func document(_ rows: PGResult, _ row: Int) -> StoredDocument {
        StoredDocument(id: rows.text(row, 0), title: rows.text(row, 1), created: rows.double(row, 2),
                       modified: rows.double(row, 3), metadata: rows.bytes(row, 4))
    }

    static let versionColumns = "document, number, revision, time, text, name, automatic, since, authorship"

    /// A version from `versionColumns`.
    static func version(_ rows: PGResult, _ row: Int) -> StoredVersion {
        StoredVersion(documentID: rows.text(row, 0), number: rows.int(row, 1), revision: rows.int(row, 2),
                      time: rows.double(row, 3), text: rows.text(row, 4), name: rows.optionalText(row, 5),
                      automatic: rows.bool(row, 6), since: rows.optionalDouble(row, 7),
                      authorship: rows.isNull(row, 8) ? nil : rows.bytes(row, 8))
    }
}
