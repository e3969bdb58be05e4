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

    /// Moves each document's revision forward by compare-and-set, then stores its changes as
    /// one run. The UNIQUE (document, last) backs this up against duplicates.
    static func insert(_ changes: [StoredChange], in db: Database) throws {
        for (document, changes) in AppendRules.byDocument(changes) { try insert(changes, of: document, in: db) }
    }

    private static func insert(_ changes: ArraySlice<StoredChange>, of document: String, in db: Database) throws {
        let revisions = try AppendRules.revisions(of: changes, document: document)
        let first = revisions.lowerBound, last = revisions.upperBound
        try db.cachedStatement(sql: "UPDATE documents SET revision = ? WHERE id = ? AND revision = ?")
            .execute(arguments: [last, document, first - 1])
        if db.changesCount == 0 {
            throw StoreError.notNext(document, stored: try revision(of: document, in: db), first: first)
        }
        for run in ChangeRun.split(changes) {
            try insertRun(ChangeRun.encode(run), of: document, first: run.first!.revision, last: run.last!.revision, in: db)
        }
    }

    private static func insertRun(_ payload: [UInt8], of document: String, first: Int, last: Int, in db: Database) throws {
        // Bound and stepped by hand: GRDB's arguments box every value, and this runs once
        // per group commit on the writer that every edit waits for.
        let insert = try db.cachedStatement(sql: "INSERT INTO change_runs (document, last, first, payload) VALUES (?, ?, ?, ?)")
        let statement = insert.sqliteStatement
        defer { sqlite3_clear_bindings(statement) }
        var id = document
        try id.withUTF8 { id in
            try payload.withUnsafeBytes { payload in
                sqlite3_bind_text(statement, 1, UnsafeRawPointer(id.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(id.count), sqliteStatic)
                sqlite3_bind_int64(statement, 2, Int64(last))
                sqlite3_bind_int64(statement, 3, Int64(first))
                sqlite3_bind_blob(statement, 4, payload.baseAddress, Int32(payload.count), sqliteStatic)
                let code = sqlite3_step(statement)
                sqlite3_reset(statement)
                guard code == SQLITE_DONE else {
                    throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
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

    /// The runs that end after `after`, in order (the index on (document, last) seeks to the
    /// first), cut to `after < revision <= through`.
    static func changes(of document: String, after: Int, through: Int, in db: Database) throws -> [StoredChange] {
        guard after < through else { return [] }
        let statement = try db.cachedStatement(sql: """
            SELECT first, last, payload FROM change_runs
            WHERE document = ? AND last > ? AND first <= ? ORDER BY last
            """)
        var changes: [StoredChange] = []
        for row in try Row.fetchAll(statement, arguments: [document, after, through]) {
            try ChangeRun.decode([UInt8](blob: row, 2), document: document, first: row[0], last: row[1],
                                 wanted: (after + 1)...through, into: &changes)
        }
        return changes
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

    /// Trimmed revisions are gone: runs that end by `through` are deleted, and the one that
    /// straddles it is rewritten to hold only its later changes.
    static func trimChanges(document: String, through: Int, in db: Database) throws {
        _ = try revision(of: document, in: db)
        try db.execute(sql: "DELETE FROM change_runs WHERE document = ? AND last <= ?", arguments: [document, through])
        guard let row = try Row.fetchOne(db, sql: """
            SELECT first, last, payload FROM change_runs
            WHERE document = ? AND last > ? ORDER BY last LIMIT 1
            """, arguments: [document, through]) else { return }
        let first: Int = row[0]
        let last: Int = row[1]
        guard first <= through else { return }
        var kept: [StoredChange] = []
        try ChangeRun.decode([UInt8](blob: row, 2), document: document, first: first, last: last,
                             wanted: (through + 1)...last, into: &kept)
        try db.execute(sql: "UPDATE change_runs SET first = ?, payload = ? WHERE document = ? AND last = ?",
                       arguments: [through + 1, ChangeRun.encode(kept).blob, document, last])
    }
}

// MARK: - Archive

/// The archive of changes that left the server's memory (`change_archive`, v3).
extension SQLiteStore {
    static func archive(_ run: ArchivedRun, in db: Database) throws {
        try db.execute(sql: """
            INSERT OR IGNORE INTO change_archive (document, first, last, bytes, payload)
            SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ?)
            """, arguments: [run.documentID, run.first, run.last, run.payload.count, run.payload.blob, run.documentID])
    }

    /// The newest runs whose sizes, added up from the newest, stay within `keepBytes` stay.
    static func trimArchive(document: String, keepBytes: Int, in db: Database) throws {
        try db.execute(sql: """
            DELETE FROM change_archive WHERE document = ?1 AND first IN (
                SELECT first FROM (
                    SELECT first, SUM(bytes) OVER (ORDER BY first DESC) AS newer
                    FROM change_archive WHERE document = ?1)
                WHERE newer > ?2)
            """, arguments: [document, keepBytes])
    }

    public func archivedRuns(document: String, after: Int, maxBytes: Int) throws(StoreError) -> [ArchivedRun] {
        try read { db in
            let bounds = try Row.fetchAll(db, sql: """
                SELECT first, last, bytes FROM change_archive
                WHERE document = ? AND last > ? ORDER BY last LIMIT \(ArchiveReading.boundsLimit)
                """, arguments: [document, after]).map { ArchiveReading.Bounds(first: $0[0], last: $0[1], bytes: $0[2]) }
            return try ArchiveReading.chosen(bounds, after: after, maxBytes: maxBytes).map { run in
                let row = try Row.fetchOne(db, sql: "SELECT payload FROM change_archive WHERE document = ? AND first = ?",
                                           arguments: [document, run.first])
                return ArchivedRun(documentID: document, first: run.first, last: run.last, payload: row.map { [UInt8](blob: $0, 0) } ?? [])
            }
        }
    }

    public func archiveSizes() throws(StoreError) -> [String: Int] {
        try read { db in
            var sizes: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT document, SUM(bytes) FROM change_archive GROUP BY document") {
                sizes[row[0]] = row[1]
            }
            return sizes
        }
    }
}
