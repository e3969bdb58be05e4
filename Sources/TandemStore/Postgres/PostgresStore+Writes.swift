/// The writes, as statements on a connection inside the writer's transaction. Conflicts and
/// missing records are found by reading first (or by the rows a statement changed) and
/// reported with `SQLiteStore`'s messages, so that callers (and the contract tests) see the
/// same errors from either store.
extension PostgresStore {
    // MARK: Submitting

    public func append(_ changes: [StoredChange], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        writer.submit(.init(changeCount: changes.count, work: .writes([.append(changes)]), completion: completion))
    }

    public func appendAndWait(_ changes: [StoredChange]) throws(StoreError) {
        try write(changeCount: changes.count, touching: [.append(changes)]) { c throws(StoreError) in try Self.insert(changes, in: c) }
    }

    public func submit(_ writes: [StoreWrite], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let changeCount = writes.reduce(0) { $0 + $1.changeCount }
        writer.submit(.init(changeCount: changeCount, work: .writes(writes), completion: completion))
    }


    static func run(_ write: StoreWrite, in c: PGConnection) throws(StoreError) {
        switch write {
        case .append(let changes): try insert(changes, in: c)
        case .createDocument(let document, let snapshot): try createDocument(document, snapshot: snapshot, in: c)
        case .updateDocument(let document): try updateDocument(document, in: c)
        case .deleteDocument(let id): _ = try deleteDocument(id, in: c)
        case .addVersion(let version): try addVersion(version, in: c)
        case .removeCheckpoint(let document, let number): try removeCheckpoint(document: document, number: number, in: c)
        case .removeVersion(let document, let number): try removeVersion(document: document, number: number, in: c)
        case .nameVersion(let document, let number, let name): try nameVersion(document: document, number: number, name: name, in: c)
        case .writeSnapshot(let snapshot): try writeSnapshot(snapshot, in: c)
        case .trimChanges(let document, let through): try trimChanges(document: document, through: through, in: c)
        case .archive(let run): try archive(run, in: c)
        case .trimArchive(let document, let keepBytes): try trimArchive(document: document, keepBytes: keepBytes, in: c)
        case .upsertPasteboard(let pasteboard): try upsertPasteboard(pasteboard, in: c)
        case .deletePasteboard(let name): try deletePasteboard(name, in: c)
        case .upsertSession(let session): try upsertSession(session, in: c)
        case .deleteSession(let id): try deleteSession(id, in: c)
        case .setMeta(let key, let value): try setMeta(key, value, in: c)
        case .upsertUser(let user): try upsertUser(user, in: c)
        case .deleteUser(let id): try deleteUser(id, in: c)
        case .recordOpened(let person, let recent): try recordOpened(person: person, recent, in: c)
        case .forgetOpened(let person): try c.query("DELETE FROM recent_documents WHERE person = $1", [.text(person)])
        }
    }

    // MARK: Change log

    /// What an append stores, as columns: each document's compare-and-set of its revision,
    /// and its changes as runs (`ChangeRun`).
    struct AppendPlan {
        var ids: [String] = [], previous: [Int] = [], lasts: [Int] = []
        /// Each document's length after its last change; -1 where the writer gave none.
        var lengths: [Int] = []
        var runDocuments: [String] = [], runLasts: [Int] = [], runFirsts: [Int] = [], payloads: [[UInt8]] = []

        init(_ changes: [StoredChange], in c: PGConnection) throws(StoreError) {
            for (document, changes) in AppendRules.byDocument(changes) {
                let revisions = try AppendRules.revisions(of: changes, document: document)
                let (before, overflow) = revisions.lowerBound.subtractingReportingOverflow(1)
                if overflow { throw StoreError.notNext(document, stored: try revision(of: document, in: c), first: revisions.lowerBound) }
                ids.append(document)
                previous.append(before)
                lasts.append(revisions.upperBound)
                lengths.append(changes.last?.length ?? -1)
                for run in ChangeRun.split(changes) {
                    runDocuments.append(document)
                    runLasts.append(run.last!.revision)
                    runFirsts.append(run.first!.revision)
                    payloads.append(ChangeRun.encode(run))
                }
            }
        }

        /// After a compare-and-set that moved only `moved` documents: the one that was not
        /// next (the transaction fails whole either way).
        func notNext(moved: Int, in c: PGConnection) throws(StoreError) -> StoreError {
            for (i, id) in ids.enumerated() {
                let stored = try revision(of: id, in: c)
                if stored != lasts[i] { return .notNext(id, stored: stored, first: previous[i] + 1) }
            }
            return .conflict("\(ids.count - moved) of \(ids.count) documents did not move")
        }
    }

    /// Moves each document's revision forward by compare-and-set, then stores its changes as
    /// runs. The primary key (document, last) backs this up against duplicates. Several
    /// documents (a unit of spread edits) take two statements in all, not two each.
    static func insert(_ changes: [StoredChange], in c: PGConnection) throws(StoreError) {
        let plan = try AppendPlan(changes, in: c)
        guard !plan.ids.isEmpty else { return }
        if plan.ids.count == 1 {
            let moved = try c.query("""
                UPDATE documents SET revision = $1, length = CASE WHEN $4::int8 >= 0 THEN $4::int8 ELSE length END
                WHERE id = $2 AND revision = $3
                """, [.int(plan.lasts[0]), .text(plan.ids[0]), .int(plan.previous[0]), .int(plan.lengths[0])]).affected
            if moved == 0 { throw try plan.notNext(moved: 0, in: c) }
        } else {
            let moved = try c.query("""
                UPDATE documents AS d SET revision = v.last, length = CASE WHEN v.length >= 0 THEN v.length ELSE d.length END
                FROM unnest($1::text[], $2::int8[], $3::int8[], $4::int8[]) AS v(id, previous, last, length)
                WHERE d.id = ANY($1::text[]) AND d.id = v.id AND d.revision = v.previous
                """, [.textArray(plan.ids), .intArray(plan.previous), .intArray(plan.lasts), .intArray(plan.lengths)]).affected
            if moved != plan.ids.count { throw try plan.notNext(moved: moved, in: c) }
        }
        if plan.runDocuments.count == 1 {
            try c.query("INSERT INTO change_runs (document, last, first, payload) VALUES ($1, $2, $3, $4)",
                        [.text(plan.runDocuments[0]), .int(plan.runLasts[0]), .int(plan.runFirsts[0]), .bytes(plan.payloads[0])])
        } else {
            try c.query("""
                INSERT INTO change_runs (document, last, first, payload)
                SELECT * FROM unnest($1::text[], $2::int8[], $3::int8[], $4::bytea[])
                """, [.textArray(plan.runDocuments), .intArray(plan.runLasts), .intArray(plan.runFirsts), .bytesArray(plan.payloads)])
        }
    }

    static func writeSnapshot(_ snapshot: StoredSnapshot, in c: PGConnection) throws(StoreError) {
        let stored = try revision(of: snapshot.documentID, in: c)
        guard (0...stored).contains(snapshot.revision) else {
            throw StoreError.conflict("snapshot at \(snapshot.revision) but \(snapshot.documentID) is at revision \(stored)")
        }
        try c.query("""
            INSERT INTO snapshots (document, revision, payload) VALUES ($1, $2, $3)
            ON CONFLICT (document) DO UPDATE SET revision = excluded.revision, payload = excluded.payload
            WHERE excluded.revision >= snapshots.revision
            """, [.text(snapshot.documentID), .int(snapshot.revision), .bytes(snapshot.payload)])
    }

    /// Trimmed revisions are gone: runs that end by `through` are deleted, and the one that
    /// straddles it is rewritten to hold only its later changes.
    static func trimChanges(document: String, through: Int, in c: PGConnection) throws(StoreError) {
        _ = try revision(of: document, in: c)
        try c.query("DELETE FROM change_runs WHERE document = $1 AND last <= $2", [.text(document), .int(through)])
        let row = try c.query("""
            SELECT first, last, payload FROM change_runs
            WHERE document = $1 AND last > $2 ORDER BY last LIMIT 1
            """, [.text(document), .int(through)])
        guard row.count > 0 else { return }
        let first = row.int(0, 0), last = row.int(0, 1)
        guard first <= through else { return }
        var kept: [StoredChange] = []
        try ChangeRun.decode(row.bytes(0, 2), document: document, first: first, last: last,
                             wanted: (through + 1)...last, into: &kept)
        try c.query("UPDATE change_runs SET first = $1, payload = $2 WHERE document = $3 AND last = $4",
                    [.int(through + 1), .bytes(ChangeRun.encode(kept)), .text(document), .int(last)])
    }

    // MARK: Documents

    static func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?, in c: PGConnection) throws(StoreError) {
        if let snapshot, snapshot.documentID != document.id {
            throw StoreError.conflict("snapshot of \(snapshot.documentID) given for \(document.id)")
        }
        try NotNull.check(document)
        if try c.query("SELECT 1 FROM documents WHERE id = $1", [.text(document.id)]).count > 0 {
            throw StoreError.conflict("document \(document.id) exists")
        }
        try c.query("""
            INSERT INTO documents (id, title, created, modified, metadata, revision, length) VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [.text(document.id), .utf8(document.title), .double(document.created), .double(document.modified),
                  .bytes(document.metadata), .int(snapshot?.revision ?? 0), document.length.map { .int($0) } ?? .null])
        if let snapshot {
            try c.query("INSERT INTO snapshots (document, revision, payload) VALUES ($1, $2, $3)",
                        [.text(snapshot.documentID), .int(snapshot.revision), .bytes(snapshot.payload)])
        }
    }

    static func updateDocument(_ document: StoredDocument, in c: PGConnection) throws(StoreError) {
        try NotNull.check(document)
        let updated = try c.query(
            "UPDATE documents SET title = $1, created = $2, modified = $3, metadata = $4 WHERE id = $5",
            [.utf8(document.title), .double(document.created), .double(document.modified), .bytes(document.metadata), .text(document.id)])
        if updated.affected == 0 { throw StoreError.noDocument(document.id) }
    }

    /// False if there was no such document.
    static func deleteDocument(_ id: String, in c: PGConnection) throws(StoreError) -> Bool {
        for table in ["change_runs", "change_archive", "snapshots", "versions", "recent_documents"] {
            try c.query("DELETE FROM \(table) WHERE document = $1", [.text(id)])
        }
        return try c.query("DELETE FROM documents WHERE id = $1", [.text(id)]).affected > 0
    }

    // MARK: Versions, sessions, pasteboards, meta

    static func addVersion(_ version: StoredVersion, in c: PGConnection) throws(StoreError) {
        try NotNull.check(version)
        _ = try revision(of: version.documentID, in: c)
        let inserted = try c.query("""
            INSERT INTO versions (document, number, revision, time, text, name, automatic, since, authorship, length)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (document, number) DO NOTHING
            """, [.text(version.documentID), .int(version.number), .int(version.revision), .double(version.time),
                  .utf8(version.text), version.name.map(PGValue.utf8) ?? .null, .bool(version.automatic),
                  version.since.map(PGValue.double) ?? .null, version.authorship.map(PGValue.bytes) ?? .null,
                  .int(version.text.utf16.count)])
        if inserted.affected == 0 { throw StoreError.conflict("UNIQUE constraint failed: versions.document, versions.number") }
    }

    static func removeCheckpoint(document: String, number: Int, in c: PGConnection) throws(StoreError) {
        try c.query("DELETE FROM versions WHERE document = $1 AND number = $2 AND automatic", [.text(document), .int(number)])
    }

    static func removeVersion(document: String, number: Int, in c: PGConnection) throws(StoreError) {
        let deleted = try c.query("DELETE FROM versions WHERE document = $1 AND number = $2", [.text(document), .int(number)])
        if deleted.affected == 0 { throw StoreError.notFound("no version \(number) of document \(document)") }
    }

    static func nameVersion(document: String, number: Int, name: String?, in c: PGConnection) throws(StoreError) {
        let updated = try c.query("UPDATE versions SET name = $1, automatic = false WHERE document = $2 AND number = $3",
                                  [name.map(PGValue.utf8) ?? .null, .text(document), .int(number)])
        if updated.affected == 0 { throw StoreError.notFound("no version \(number) of document \(document)") }
    }

    static func upsertSession(_ session: StoredSession, in c: PGConnection) throws(StoreError) {
        try NotNull.check(session)
        try c.query("""
            INSERT INTO sessions (id, token_hash, name, color, created, last_seen, user_id, grants, expires)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (id) DO UPDATE SET token_hash = excluded.token_hash, name = excluded.name,
                color = excluded.color, created = excluded.created, last_seen = excluded.last_seen, user_id = excluded.user_id,
                grants = excluded.grants, expires = excluded.expires
            """, [.text(session.id), .bytes(session.tokenHash), .utf8(session.name), .text(session.color),
                  .double(session.created), .double(session.lastSeen), session.userID.map(PGValue.text) ?? .null,
                  session.grants.map(PGValue.text) ?? .null, session.expires.map(PGValue.double) ?? .null])
    }

    static func deleteSession(_ id: String, in c: PGConnection) throws(StoreError) {
        try c.query("DELETE FROM sessions WHERE id = $1", [.text(id)])
    }

    static func upsertPasteboard(_ pasteboard: StoredPasteboard, in c: PGConnection) throws(StoreError) {
        try c.query("""
            INSERT INTO pasteboards (name, owner, persistent, change_count, payload, shared, shared_with) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, persistent = excluded.persistent,
                change_count = excluded.change_count, payload = excluded.payload, shared = excluded.shared,
                shared_with = excluded.shared_with
            """, [.text(pasteboard.name), pasteboard.owner.map(PGValue.text) ?? .null, .bool(pasteboard.persistent),
                  .int(pasteboard.changeCount), .bytes(pasteboard.payload), .bool(pasteboard.shared),
                  pasteboard.sharedWithColumn.map(PGValue.text) ?? .null])
    }

    static func deletePasteboard(_ name: String, in c: PGConnection) throws(StoreError) {
        try c.query("DELETE FROM pasteboards WHERE name = $1", [.text(name)])
    }

    static func setMeta(_ key: String, _ value: [UInt8]?, in c: PGConnection) throws(StoreError) {
        if let value {
            try c.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        [.text(key), .bytes(value)])
        } else {
            try c.query("DELETE FROM meta WHERE key = $1", [.text(key)])
        }
    }

    // MARK: Blocking writes

    public func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?) throws(StoreError) {
        try write(touching: [.createDocument(document, snapshot: nil)]) { c throws(StoreError) in try Self.createDocument(document, snapshot: snapshot, in: c) }
    }

    public func updateDocument(_ document: StoredDocument) throws(StoreError) {
        try write(touching: [.updateDocument(document)]) { c throws(StoreError) in try Self.updateDocument(document, in: c) }
    }

    public func deleteDocument(_ id: String) throws(StoreError) {
        try write(touching: [.deleteDocument(id)]) { c throws(StoreError) in
            if try !Self.deleteDocument(id, in: c) { throw StoreError.noDocument(id) }
        }
    }

    public func writeSnapshot(_ snapshot: StoredSnapshot) throws(StoreError) {
        try write(touching: [.writeSnapshot(snapshot)]) { c throws(StoreError) in try Self.writeSnapshot(snapshot, in: c) }
    }

    public func trimChanges(document: String, through: Int) throws(StoreError) {
        try write(touching: [.trimChanges(document: document, through: through)]) { c throws(StoreError) in
            try Self.trimChanges(document: document, through: through, in: c)
        }
    }

    public func addVersion(_ version: StoredVersion) throws(StoreError) {
        try write(touching: [.addVersion(version)]) { c throws(StoreError) in try Self.addVersion(version, in: c) }
    }

    public func upsertSession(_ session: StoredSession) throws(StoreError) {
        try write(touching: [.upsertSession(session)]) { c throws(StoreError) in try Self.upsertSession(session, in: c) }
    }

    public func deleteSession(_ id: String) throws(StoreError) {
        try write(touching: [.deleteSession(id)]) { c throws(StoreError) in try Self.deleteSession(id, in: c) }
    }

    /// An `UPDATE`, never an insert: a session ended meanwhile stays ended. A NaN time is
    /// skipped (SQLite binds it as NULL, which no comparison matches).
    public func updateSessionsLastSeen(_ lastSeen: [String: Double]) throws(StoreError) {
        let entries = lastSeen.filter { !$0.value.isNaN }
        guard !entries.isEmpty else { return }
        try write { c throws(StoreError) in
            for (id, time) in entries {
                try c.query("UPDATE sessions SET last_seen = $1 WHERE id = $2 AND last_seen < $1",
                            [.double(time), .text(id)])
            }
        }
    }

    public func upsertPasteboard(_ pasteboard: StoredPasteboard) throws(StoreError) {
        try write(touching: [.upsertPasteboard(pasteboard)]) { c throws(StoreError) in try Self.upsertPasteboard(pasteboard, in: c) }
    }

    public func deletePasteboard(_ name: String) throws(StoreError) {
        try write(touching: [.deletePasteboard(name)]) { c throws(StoreError) in try Self.deletePasteboard(name, in: c) }
    }

    public func setMeta(_ key: String, _ value: [UInt8]?) throws(StoreError) {
        try write(touching: [.setMeta(key, nil)]) { c throws(StoreError) in try Self.setMeta(key, value, in: c) }
    }
}

// MARK: - The change archive

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
