import GRDB

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
