/// Users (`StoredUser`, migration 6), with `SQLiteStore`'s rules.
extension PostgresStore {
    static func upsertUser(_ user: StoredUser, in c: PGConnection) throws(StoreError) {
        let taken = try c.query("SELECT 1 FROM users WHERE name = $1 AND id != $2", [.utf8(user.name), .text(user.id)])
        if taken.count > 0 { throw StoreError.conflict("a user named \(user.name) exists") }
        try c.query("""
            INSERT INTO users (id, name, display_name, password_hash, created) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, display_name = excluded.display_name,
                password_hash = excluded.password_hash, created = excluded.created
            """, [.text(user.id), .utf8(user.name), .utf8(user.displayName), user.passwordHash.map(PGValue.text) ?? .null,
                  .double(user.created)])
    }

    static func deleteUser(_ id: String, in c: PGConnection) throws(StoreError) {
        try c.query("DELETE FROM sessions WHERE user_id = $1", [.text(id)])
        try c.query("DELETE FROM users WHERE id = $1", [.text(id)])
    }

    public func users() throws(StoreError) -> [StoredUser] {
        try read { c throws(StoreError) in try Self.users(in: c, where: "", []) }
    }

    public func user(named name: String) throws(StoreError) -> StoredUser? {
        try read { c throws(StoreError) in try Self.users(in: c, where: "WHERE name = $1", [.utf8(name)]).first }
    }

    public func user(id: String) throws(StoreError) -> StoredUser? {
        try read { c throws(StoreError) in try Self.users(in: c, where: "WHERE id = $1", [.text(id)]).first }
    }

    static func users(in c: PGConnection, where filter: String, _ parameters: [PGValue]) throws(StoreError) -> [StoredUser] {
        let rows = try c.query("SELECT id, name, display_name, password_hash, created FROM users \(filter) ORDER BY id", parameters)
        return (0..<rows.count).map { row in
            StoredUser(id: rows.text(row, 0), name: rows.text(row, 1), displayName: rows.text(row, 2),
                       passwordHash: rows.optionalText(row, 3), created: rows.double(row, 4))
        }
    }

    // MARK: Documents people opened

    /// With `SQLiteStore`'s rules: only a stored document is noted, a later time wins, the
    /// oldest past the limit go. The document's head is locked first (`lockHeads`).
    static func recordOpened(person: String, _ recent: RecentDocument, in c: PGConnection) throws(StoreError) {
        try c.query("""
            INSERT INTO recent_documents (person, document, opened) SELECT $1, id, $2 FROM documents WHERE id = $3
            ON CONFLICT (person, document) DO UPDATE SET opened = greatest(recent_documents.opened, excluded.opened)
            """, [.text(person), .double(recent.opened), .text(recent.documentID)])
        try c.query("""
            DELETE FROM recent_documents WHERE person = $1 AND document NOT IN
                (SELECT document FROM recent_documents WHERE person = $1 ORDER BY opened DESC, document LIMIT $2::bigint)
            """, [.text(person), .int(RecentDocument.limit)])
    }

    public func recentDocuments(person: String) throws(StoreError) -> [RecentDocument] {
        try read { c throws(StoreError) in
            let rows = try c.query("SELECT document, opened FROM recent_documents WHERE person = $1 ORDER BY opened DESC, document",
                                   [.text(person)])
            return (0..<rows.count).map { RecentDocument(documentID: rows.text($0, 0), opened: rows.double($0, 1)) }
        }
    }
}
