import Foundation
import GRDB

extension SQLiteStore {
    // MARK: Versions

    public func addVersion(_ version: StoredVersion) throws(StoreError) {
        try write { db in try Self.addVersion(version, in: db) }
    }

    static func addVersion(_ version: StoredVersion, in db: Database) throws {
        _ = try revision(of: version.documentID, in: db)
        // A taken number violates the primary key: `.conflict`.
        try db.execute(
            sql: "INSERT INTO versions (\(StoredVersion.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: [version.documentID, version.number, version.revision, version.time, version.text.utf8Blob, version.name?.utf8Blob,
                        version.automatic, version.since, version.authorship.map { Data($0) }, version.text.utf16.count])
    }

    static func removeCheckpoint(document: String, number: Int, in db: Database) throws {
        try db.execute(sql: "DELETE FROM versions WHERE document = ? AND number = ? AND automatic", arguments: [document, number])
    }

    static func removeVersion(document: String, number: Int, in db: Database) throws {
        try db.execute(sql: "DELETE FROM versions WHERE document = ? AND number = ?", arguments: [document, number])
        if db.changesCount == 0 { throw StoreError.notFound("no version \(number) of document \(document)") }
    }

    static func nameVersion(document: String, number: Int, name: String?, in db: Database) throws {
        try db.execute(sql: "UPDATE versions SET name = ?, automatic = 0 WHERE document = ? AND number = ?",
                       arguments: [name?.utf8Blob, document, number])
        if db.changesCount == 0 { throw StoreError.notFound("no version \(number) of document \(document)") }
    }

    public func versions(document: String) throws(StoreError) -> [StoredVersion] {
        FaultInjection.versionRead()
        return try read { db in
            try Row.fetchAll(db, sql: "SELECT \(StoredVersion.selected) FROM versions WHERE document = ? ORDER BY number",
                             arguments: [document]).map(StoredVersion.init(row:))
        }
    }

    public func versionSummaries(document: String) throws(StoreError) -> [StoredVersion.Summary] {
        FaultInjection.versionRead()
        return try read { db in
            // The text only of versions stored before their length was.
            try Row.fetchAll(db, sql: """
                SELECT number, revision, time, length, CAST(name AS BLOB), automatic, since,
                       CASE WHEN length IS NULL THEN CAST(text AS BLOB) END
                FROM versions WHERE document = ? ORDER BY number
                """, arguments: [document]).map { row in
                    let length: Int = row[3] ?? String(utf8Blob: row, 7).utf16.count
                    return StoredVersion.Summary(number: row[0], revision: row[1], time: row[2], length: length,
                                                 name: String(optionalUTF8Blob: row, 4), automatic: row[5], since: row[6])
                }
        }
    }

    public func versionLedger(document: String) throws(StoreError) -> VersionLedger {
        FaultInjection.versionRead()
        return try read { db in
            VersionLedger(try Row.fetchAll(db, sql: """
                SELECT number, automatic, since, length(CAST(text AS BLOB)) + ifnull(length(authorship), 0)
                FROM versions WHERE document = ? ORDER BY number
                """, arguments: [document]).map { row in
                    VersionLedger.Entry(number: row[0], automatic: row[1], since: row[2], bytes: VersionLedger.rowBytes + (row[3] as Int))
                })
        }
    }

    public func version(document: String, number: Int) throws(StoreError) -> StoredVersion? {
        FaultInjection.versionRead()
        return try read { db in
            try Row.fetchOne(db, sql: "SELECT \(StoredVersion.selected) FROM versions WHERE document = ? AND number = ?",
                             arguments: [document, number]).map(StoredVersion.init(row:))
        }
    }

    // MARK: Sessions

    public func upsertSession(_ session: StoredSession) throws(StoreError) {
        try write { db in try Self.upsertSession(session, in: db) }
    }

    static func upsertSession(_ session: StoredSession, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO sessions (\(StoredSession.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: [session.id, session.tokenHash.blob, session.name.utf8Blob, session.color, session.created, session.lastSeen,
                        session.userID, session.grants, session.expires])
    }

    public func deleteSession(_ id: String) throws(StoreError) {
        try write { db in try Self.deleteSession(id, in: db) }
    }

    static func deleteSession(_ id: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id])
    }

    public func sessions() throws(StoreError) -> [StoredSession] {
        try read { db in try Self.sessions(in: db) }
    }

    public func session(_ id: String) throws(StoreError) -> StoredSession? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(StoredSession.selected) FROM sessions WHERE id = ?", arguments: [id]).map(StoredSession.init(row:))
        }
    }

    static func sessions(in db: Database) throws -> [StoredSession] {
        try Row.fetchAll(db, sql: "SELECT \(StoredSession.selected) FROM sessions ORDER BY id").map(StoredSession.init(row:))
    }

    /// Records when sessions were last active, all in one transaction. An `UPDATE`, never an
    /// insert: a session ended meanwhile stays ended.
    public func updateSessionsLastSeen(_ lastSeen: [String: Double]) throws(StoreError) {
        guard !lastSeen.isEmpty else { return }
        try write { db in
            let statement = try db.makeStatement(sql: "UPDATE sessions SET last_seen = ? WHERE id = ? AND last_seen < ?")
            for (id, time) in lastSeen {
                try statement.execute(arguments: [time, id, time])
            }
        }
    }

    // MARK: Users

    static func upsertUser(_ user: StoredUser, in db: Database) throws {
        // A name taken by another user violates the UNIQUE constraint: `.conflict`.
        try db.execute(
            sql: "INSERT OR REPLACE INTO users (\(StoredUser.columns)) SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM users WHERE name = ? AND id != ?)",
            arguments: [user.id, Data(user.name.utf8), Data(user.displayName.utf8), user.passwordHash, user.created,
                        Data(user.name.utf8), user.id])
        if db.changesCount == 0 { throw StoreError.conflict("a user named \(user.name) exists") }
    }

    static func deleteUser(_ id: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM sessions WHERE user_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [id])
    }

    // MARK: Documents people opened

    static func recordOpened(person: String, _ recent: RecentDocument, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO recent_documents (person, document, opened, link) SELECT ?, id, ?, ? FROM documents WHERE id = ?
            ON CONFLICT (person, document) DO UPDATE SET link = CASE WHEN excluded.opened >= opened THEN excluded.link ELSE link END,
                opened = max(opened, excluded.opened)
            """, arguments: [person, recent.opened, recent.link, recent.documentID])
        try db.execute(sql: """
            DELETE FROM recent_documents WHERE person = ? AND document NOT IN
                (SELECT document FROM recent_documents WHERE person = ? ORDER BY opened DESC, document LIMIT ?)
            """, arguments: [person, person, RecentDocument.limit])
    }

    static func forgetOpened(person: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM recent_documents WHERE person = ?", arguments: [person])
    }

    public func recentDocuments(person: String) throws(StoreError) -> [RecentDocument] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT document, opened, link FROM recent_documents WHERE person = ? ORDER BY opened DESC, document",
                             arguments: [person]).map { RecentDocument(documentID: $0[0], opened: $0[1], link: $0[2]) }
        }
    }

    public func users() throws(StoreError) -> [StoredUser] {
        try read { db in try Row.fetchAll(db, sql: "SELECT \(StoredUser.selected) FROM users ORDER BY id").map(StoredUser.init(row:)) }
    }

    public func user(named name: String) throws(StoreError) -> StoredUser? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(StoredUser.selected) FROM users WHERE name = ?", arguments: [Data(name.utf8)])
                .map(StoredUser.init(row:))
        }
    }

    public func user(id: String) throws(StoreError) -> StoredUser? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(StoredUser.selected) FROM users WHERE id = ?", arguments: [id]).map(StoredUser.init(row:))
        }
    }

    // MARK: Pasteboards

    public func upsertPasteboard(_ pasteboard: StoredPasteboard) throws(StoreError) {
        try write { db in try Self.upsertPasteboard(pasteboard, in: db) }
    }

    static func upsertPasteboard(_ pasteboard: StoredPasteboard, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO pasteboards (\(StoredPasteboard.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [pasteboard.name, pasteboard.owner, pasteboard.persistent, pasteboard.changeCount, pasteboard.payload.blob, pasteboard.shared,
                        pasteboard.sharedWithColumn])
    }

    public func deletePasteboard(_ name: String) throws(StoreError) {
        try write { db in try Self.deletePasteboard(name, in: db) }
    }

    static func deletePasteboard(_ name: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM pasteboards WHERE name = ?", arguments: [name])
    }

    public func pasteboards() throws(StoreError) -> [StoredPasteboard] {
        try read { db in try Self.pasteboards(in: db) }
    }

    static func pasteboards(in db: Database) throws -> [StoredPasteboard] {
        try Row.fetchAll(db, sql: "SELECT \(StoredPasteboard.columns) FROM pasteboards ORDER BY name").map(StoredPasteboard.init(row:))
    }

    // MARK: Meta

    public func setMeta(_ key: String, _ value: [UInt8]?) throws(StoreError) {
        try write { db in try Self.setMeta(key, value, in: db) }
    }

    static func setMeta(_ key: String, _ value: [UInt8]?, in db: Database) throws {
        if let value {
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value.blob])
        } else {
            try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
        }
    }

    public func meta(_ key: String) throws(StoreError) -> [UInt8]? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]).map { [UInt8](blob: $0, 0) }
        }
    }
}
