import GRDB

extension SQLiteStore {
    public func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?) throws(StoreError) {
        try write { db in try Self.createDocument(document, snapshot: snapshot, in: db) }
    }

    static func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?, in db: Database) throws {
        if let snapshot, snapshot.documentID != document.id {
            throw StoreError.conflict("snapshot of \(snapshot.documentID) given for \(document.id)")
        }
        if try Int.fetchOne(db, sql: "SELECT 1 FROM documents WHERE id = ?", arguments: [document.id]) != nil {
            throw StoreError.conflict("document \(document.id) exists")
        }
        try db.execute(
            sql: "INSERT INTO documents (\(StoredDocument.columns), revision) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [document.id, document.title.utf8Blob, document.created, document.modified,
                        document.metadata.blob, snapshot?.revision ?? 0])
        if let snapshot {
            try db.execute(
                sql: "INSERT INTO snapshots (document, revision, payload) VALUES (?, ?, ?)",
                arguments: [snapshot.documentID, snapshot.revision, snapshot.payload.blob])
        }
    }

    public func updateDocument(_ document: StoredDocument) throws(StoreError) {
        try write { db in try Self.updateDocument(document, in: db) }
    }

    static func updateDocument(_ document: StoredDocument, in db: Database) throws {
        try db.execute(
            sql: "UPDATE documents SET title = ?, created = ?, modified = ?, metadata = ? WHERE id = ?",
            arguments: [document.title.utf8Blob, document.created, document.modified, document.metadata.blob, document.id])
        if db.changesCount == 0 { throw StoreError.notFound("no document \(document.id)") }
    }

    public func deleteDocument(_ id: String) throws(StoreError) {
        try write { db in
            if try !Self.deleteDocument(id, in: db) { throw StoreError.notFound("no document \(id)") }
        }
    }

    /// False if there was no such document.
    static func deleteDocument(_ id: String, in db: Database) throws -> Bool {
        // Explicit rather than relying on ON DELETE CASCADE alone: it does not depend on
        // the foreign_keys pragma.
        for table in ["change_runs", "change_archive", "snapshots", "versions", "recent_documents"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE document = ?", arguments: [id])
        }
        try db.execute(sql: "DELETE FROM documents WHERE id = ?", arguments: [id])
        return db.changesCount > 0
    }

    public func document(_ id: String) throws(StoreError) -> StoredDocument? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(StoredDocument.selected) FROM documents WHERE id = ?", arguments: [id])
                .map(StoredDocument.init(row:))
        }
    }

    public func lastRevision(document: String) throws(StoreError) -> Int {
        try read { db in try Self.revision(of: document, in: db) }
    }
}
