import GRDB

extension SQLiteStore {
    /// One read transaction, so the picture is consistent. Per document it reads the snapshot
    /// and seeks the primary key to the changes after it: the cost follows the tails, not the
    /// length of the history.
    public func loadAll() throws(StoreError) -> StoreContents {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT d.id, CAST(d.title AS BLOB), d.created, d.modified, d.metadata, d.revision, s.revision, s.payload
                FROM documents d LEFT JOIN snapshots s ON s.document = d.id
                ORDER BY d.id
                """)
            let documents = try rows.map { row in
                let document = StoredDocument(row: row)
                let revision: Int = row[5]
                let snapshotRevision: Int? = row[6]
                let snapshot = snapshotRevision.map {
                    StoredSnapshot(documentID: document.id, revision: $0, payload: [UInt8](blob: row, 7))
                }
                let tail = try Self.changes(of: document.id, after: snapshotRevision ?? 0, through: Int.max, in: db)
                return LoadedDocument(document: document, revision: revision, snapshot: snapshot, tail: tail)
            }
            var meta: [String: [UInt8]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM meta") {
                meta[row[0]] = [UInt8](blob: row, 1)
            }
            return StoreContents(
                documents: documents, sessions: try Self.sessions(in: db),
                pasteboards: try Self.pasteboards(in: db), meta: meta)
        }
    }
}
