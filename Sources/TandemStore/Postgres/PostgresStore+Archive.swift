/// The archive of changes that left the server's memory (`change_archive`, migration 5),
/// with `SQLiteStore`'s rules.
extension PostgresStore {
    static func archive(_ run: ArchivedRun, in c: PGConnection) throws(StoreError) {
        try c.query("""
            INSERT INTO change_archive (document, first, last, bytes, payload)
            SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM documents WHERE id = $1)
            ON CONFLICT (document, first) DO NOTHING
            """, [.text(run.documentID), .int(run.first), .int(run.last), .int(run.payload.count), .bytes(run.payload)])
    }

    static func trimArchive(document: String, keepBytes: Int, in c: PGConnection) throws(StoreError) {
        try c.query("""
            DELETE FROM change_archive WHERE document = $1 AND first IN (
                SELECT first FROM (
                    SELECT first, SUM(bytes) OVER (ORDER BY first DESC) AS newer
                    FROM change_archive WHERE document = $1) AS sizes
                WHERE newer > $2)
            """, [.text(document), .int(keepBytes)])
    }

    public func archivedRuns(document: String, after: Int, maxBytes: Int) throws(StoreError) -> [ArchivedRun] {
        try read { c throws(StoreError) in
            try c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            let rows = try c.query("""
                SELECT first, last, bytes FROM change_archive
                WHERE document = $1 AND last > $2 ORDER BY last LIMIT \(ArchiveReading.boundsLimit)
                """, [.text(document), .int(after)])
            let bounds = (0..<rows.count).map { ArchiveReading.Bounds(first: rows.int($0, 0), last: rows.int($0, 1), bytes: rows.int($0, 2)) }
            var runs: [ArchivedRun] = []
            for run in ArchiveReading.chosen(bounds, after: after, maxBytes: maxBytes) {
                let row = try c.query("SELECT payload FROM change_archive WHERE document = $1 AND first = $2",
                                      [.text(document), .int(run.first)])
                runs.append(ArchivedRun(documentID: document, first: run.first, last: run.last, payload: row.count > 0 ? row.bytes(0, 0) : []))
            }
            try c.execute("COMMIT")
            return runs
        }
    }

    public func archiveSizes() throws(StoreError) -> [String: Int] {
        try read { c throws(StoreError) in
            let rows = try c.query("SELECT document, SUM(bytes)::bigint FROM change_archive GROUP BY document")
            var sizes: [String: Int] = [:]
            for row in 0..<rows.count { sizes[rows.text(row, 0)] = rows.int(row, 1) }
            return sizes
        }
    }
}
