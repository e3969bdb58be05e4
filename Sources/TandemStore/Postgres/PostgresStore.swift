import Foundation
/// `DocumentStore` in PostgreSQL, through libpq: the second implementation of the storage
/// seam, with `SQLiteStore`'s contract (the contract tests run against both).
///
/// - Writes go through one `PostgresWriter` thread holding its own connection: it commits
///   whatever is queued as one transaction (group commit), completes the jobs in order. Units are all-or-nothing; a conflict undoes only its job.
/// - Reads run on a small pool of other connections (`PostgresReaders`) and see every write
///   whose call returned or whose completion ran (the writer's COMMIT has returned by then).
/// - The schema is created and migrated on open (`PostgresSchema`), under an advisory lock.
/// - Errors map to the same `StoreError`s as SQLite's, with the same messages for conflicts
///   and missing records; a lost connection is `.io` and makes `health` failing until a
///   write commits again (the writer reconnects before its next batch).
///
/// `schema`: a PostgreSQL schema of its own (created if absent) for the tables, so that
/// several stores (tests, or Tandem instances) share one database; nil uses the connection's
/// `search_path` (usually `public`).
public final class PostgresStore: DocumentStore {
    /// The libpq conninfo (`host=… dbname=…`) or URL (`postgres://user@host:port/db`).
    public let url: String
    public let schema: String?
    /// This process's name in the cluster feed: its own entries are not news to it.
    public let nodeID: String
    /// The NOTIFY channel every commit of this schema rings.
    public let channel: String
    /// How far this node's own feed entries are published in this process.
    public let published = PublishedFeed()
    let writer: PostgresWriter
    let readers: PostgresReaders

    public init(url: String, schema: String? = nil) throws(StoreError) {
        self.url = url
        self.schema = schema
        // A database that does not answer must fail a connection attempt in seconds, not
        // minutes (libpq waits forever by default); a value the environment sets wins.
        setenv("PGCONNECT_TIMEOUT", "3", 0)
        let connection = try PGConnection(conninfo: url, schema: schema)
        try PostgresSchema.migrate(connection)
        nodeID = Self.makeNodeID()
        channel = Self.channel(schema: schema)
        writer = PostgresWriter(connection: connection, node: nodeID, channel: channel, published: published)
        readers = PostgresReaders(conninfo: url, schema: schema)
    }

    deinit {
        close()
    }

    public var statistics: StoreStatistics { writer.statistics }

    public var health: StoreHealth { writer.health }

    public func close() {
        guard !writer.isClosed else { return }
        writer.close()
        readers.close()
    }

    /// The schema version the database is at (`tandem_schema_version`).
    public func schemaVersion() throws(StoreError) -> Int {
        try read { c throws(StoreError) in try c.query("SELECT coalesce(max(version), 0)::bigint FROM tandem_schema_version").int(0, 0) }
    }

    static func makeNodeID() -> String {
        let host = ProcessInfo.processInfo.hostName.prefix(32)
        return "\(host):\(getpid()):" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// Runs `body` with its reads on the connection kept for the cluster sync, which reads
    /// slowed by locks elsewhere cannot take (`PostgresReaders`); such reads take turns.
    public static func readingFeed<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try PostgresReaders.$readingFeed.withValue(true) { Result { () throws(StoreError) in try body() } }.get()
    }

    // MARK: Helpers for the other files

    func guardOpen() throws(StoreError) {
        if writer.isClosed { throw .closed }
    }

    func read<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try guardOpen()
        return try readers.read(body)
    }

    /// `touching`: what `work` writes, named in the cluster feed.
    func write(changeCount: Int = 0, touching touched: [StoreWrite] = [], _ work: @escaping PostgresWriter.Work) throws(StoreError) {
        try guardOpen()
        try writer.perform(changeCount: changeCount, touching: touched, work)
    }

    /// The stored revision of a document, or `.notFound`.
    static func revision(of document: String, in c: PGConnection) throws(StoreError) -> Int {
        let result = try c.query("SELECT revision FROM documents WHERE id = $1", [.text(document)])
        guard result.count > 0 else { throw StoreError.noDocument(document) }
        return result.int(0, 0)
    }
}

// MARK: - Users

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
            INSERT INTO recent_documents (person, document, opened, link) SELECT $1, id, $2, $4 FROM documents WHERE id = $3
            ON CONFLICT (person, document) DO UPDATE SET
                link = CASE WHEN excluded.opened >= recent_documents.opened THEN excluded.link ELSE recent_documents.link END,
                opened = greatest(recent_documents.opened, excluded.opened)
            """, [.text(person), .double(recent.opened), .text(recent.documentID), recent.link.map(PGValue.text) ?? .null])
        try c.query("""
            DELETE FROM recent_documents WHERE person = $1 AND document NOT IN
                (SELECT document FROM recent_documents WHERE person = $1 ORDER BY opened DESC, document LIMIT $2::bigint)
            """, [.text(person), .int(RecentDocument.limit)])
    }

    public func recentDocuments(person: String) throws(StoreError) -> [RecentDocument] {
        try read { c throws(StoreError) in
            let rows = try c.query("SELECT document, opened, link FROM recent_documents WHERE person = $1 ORDER BY opened DESC, document",
                                   [.text(person)])
            return (0..<rows.count).map { RecentDocument(documentID: rows.text($0, 0), opened: rows.double($0, 1), link: rows.optionalText($0, 2)) }
        }
    }
}
