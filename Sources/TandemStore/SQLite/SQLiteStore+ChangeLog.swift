import GRDB
import GRDBSQLite

/// Tells SQLite that bound bytes stay valid until the statement is reset.
private let sqliteStatic = unsafeBitCast(0, to: sqlite3_destructor_type.self)

extension SQLiteStore {
    public func append(_ changes: [StoredChange], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        writer.submit(.init(changeCount: changes.count, work: .writes([.append(changes)]), completion: completion))
    }

    public func appendAndWait(_ changes: [StoredChange]) throws(StoreError) {
        try writer.perform(changeCount: changes.count) { db in try Self.insert(changes, in: db) }
    }

    /// Moves each document's revision forward by compare-and-set, then inserts its rows. The
    /// PRIMARY KEY (document, revision) backs this up against duplicates.
    static func insert(_ changes: [StoredChange], in db: Database) throws {
        guard let firstChange = changes.first else { return }
        // Nearly always one document: avoid the dictionary then.
        if changes.allSatisfy({ $0.documentID == firstChange.documentID }) {
            try insert(changes[...], of: firstChange.documentID, in: db)
            return
        }
        var order: [String] = []
        var byDocument: [String: [StoredChange]] = [:]
        for change in changes {
            if byDocument[change.documentID] == nil { order.append(change.documentID) }
            byDocument[change.documentID, default: []].append(change)
        }
        for id in order { try insert(byDocument[id]![...], of: id, in: db) }
    }

    private static func insert(_ changes: ArraySlice<StoredChange>, of document: String, in db: Database) throws {
        let first = changes.first!.revision
        for (offset, change) in changes.enumerated() where change.revision != first + offset {
            throw StoreError.conflict("revisions of \(document) are not consecutive at \(change.revision)")
        }
        let last = first + changes.count - 1
        try db.cachedStatement(sql: "UPDATE documents SET revision = ? WHERE id = ? AND revision = ?")
            .execute(arguments: [last, document, first - 1])
        if db.changesCount == 0 {
            let stored = try revision(of: document, in: db)
            throw StoreError.conflict("document \(document) is at revision \(stored), cannot append revision \(first)")
        }
        // Bound and stepped by hand: GRDB's arguments box every value, which cost more than
        // SQLite's own work for these small rows, and this runs once per keystroke.
        let insert = try db.cachedStatement(sql: "INSERT INTO changes (document, revision, payload) VALUES (?, ?, ?)")
        let statement = insert.sqliteStatement
        defer { sqlite3_clear_bindings(statement) }
        var id = document
        try id.withUTF8 { id in
            sqlite3_bind_text(statement, 1, UnsafeRawPointer(id.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(id.count), sqliteStatic)
            for change in changes {
                sqlite3_bind_int64(statement, 2, Int64(change.revision))
                try change.payload.withUnsafeBytes { payload in
                    if let base = payload.baseAddress {
                        _ = sqlite3_bind_blob(statement, 3, base, Int32(payload.count), sqliteStatic)
                    } else {
                        _ = sqlite3_bind_zeroblob(statement, 3, 0)
                    }
                    let code = sqlite3_step(statement)
                    sqlite3_reset(statement)
                    guard code == SQLITE_DONE else {
                        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                    }
                }
            }
        }
    }

    public func changes(document: String, after: Int, through: Int?) throws(StoreError) -> [StoredChange] {
        try read { db in
            _ = try Self.revision(of: document, in: db)
            return try Self.changes(of: document, after: after, through: through ?? Int.max, in: db)
        }
    }

    static func changes(of document: String, after: Int, through: Int, in db: Database) throws -> [StoredChange] {
        let statement = try db.cachedStatement(sql: """
            SELECT revision, payload FROM changes
            WHERE document = ? AND revision > ? AND revision <= ? ORDER BY revision
            """)
        return try Row.fetchAll(statement, arguments: [document, after, through]).map { row in
            StoredChange(documentID: document, revision: row[0], payload: [UInt8](blob: row, 1))
        }
    }

    public func writeSnapshot(_ snapshot: StoredSnapshot) throws(StoreError) {
        try write { db in try Self.writeSnapshot(snapshot, in: db) }
    }

    static func writeSnapshot(_ snapshot: StoredSnapshot, in db: Database) throws {
        let stored = try revision(of: snapshot.documentID, in: db)
        guard (0...stored).contains(snapshot.revision) else {
            throw StoreError.conflict("snapshot at \(snapshot.revision) but \(snapshot.documentID) is at revision \(stored)")
        }
        try db.execute(
            sql: """
                INSERT INTO snapshots (document, revision, payload) VALUES (?, ?, ?)
                ON CONFLICT (document) DO UPDATE SET revision = excluded.revision, payload = excluded.payload
                WHERE excluded.revision >= snapshots.revision
                """,
            arguments: [snapshot.documentID, snapshot.revision, snapshot.payload.blob])
    }

    /// The stored snapshot of a document, if any.
    public func snapshot(document: String) throws(StoreError) -> StoredSnapshot? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT revision, payload FROM snapshots WHERE document = ?", arguments: [document])
                .map { StoredSnapshot(documentID: document, revision: $0[0], payload: [UInt8](blob: $0, 1)) }
        }
    }

    public func trimChanges(document: String, through: Int) throws(StoreError) {
        try write { db in try Self.trimChanges(document: document, through: through, in: db) }
    }

    static func trimChanges(document: String, through: Int, in db: Database) throws {
        _ = try revision(of: document, in: db)
        try db.execute(sql: "DELETE FROM changes WHERE document = ? AND revision <= ?", arguments: [document, through])
    }
}
