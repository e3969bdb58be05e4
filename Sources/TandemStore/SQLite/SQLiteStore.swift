import Foundation
import GRDB

/// `DocumentStore` in one SQLite file, `<directory>/tandem.sqlite`, in WAL mode.
///
/// Writes go through one `GroupCommitWriter` thread; reads run on GRDB's reader connections
/// beside it and see every write that has returned or completed.
public final class SQLiteStore: DocumentStore {
    public static let fileName = "tandem.sqlite"

    /// The database file's path.
    public let path: String
    public let durability: Durability
    let database: DatabasePool
    let writer: GroupCommitWriter

    /// Opens (creating if needed) the store in `directory`, then sets and checks `durability`.
    public init(directory: String, durability: Durability = .full) throws(StoreError) {
        path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        self.durability = durability
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.label = "TandemStore"
            configuration.foreignKeysEnabled = true
            database = try DatabasePool(path: path, configuration: configuration)
            try Schema.migrator.migrate(database)
            // GRDB sets synchronous=NORMAL on the WAL writer after `prepareDatabase`, so the
            // mode is set here, after opening, and read back to be sure it took.
            let wanted = durability.pragmaValue
            let actual = try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(wanted)")
                return try Int.fetchOne(db, sql: "PRAGMA synchronous")
            }
            guard actual == wanted else {
                throw StoreError.io("PRAGMA synchronous is \(actual.map(String.init) ?? "nil"), wanted \(wanted)")
            }
        } catch {
            // SQLite says only "unable to open database file" when the directory is read-only.
            if case .io = StoreError(error), access(directory, W_OK) != 0, errno == EROFS || errno == EACCES {
                throw .readOnly
            }
            throw StoreError(error)
        }
        // `full` flushes the WAL on the writer's syncer, out of SQLite's commit (see GroupCommitWriter).
        writer = GroupCommitWriter(database: database, walPath: durability == .full ? path + "-wal" : nil)
    }

    deinit {
        close()
    }

    public var statistics: StoreStatistics { writer.statistics }

    public var health: StoreHealth { writer.health }

    /// `PRAGMA synchronous` as the writer connection reports it now (0 off, 1 normal, 2 full).
    public func synchronousPragma() throws(StoreError) -> Int {
        try guardOpen()
        do {
            return try database.writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            }
        } catch {
            throw StoreError(error)
        }
    }

    /// `PRAGMA journal_mode` of the writer connection (`wal`).
    public func journalMode() throws(StoreError) -> String {
        try read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    public func close() {
        guard !writer.isClosed else { return }
        writer.close()
        try? database.close()
    }

    // MARK: Helpers for the other files

    func guardOpen() throws(StoreError) {
        if writer.isClosed { throw .closed }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) throws(StoreError) -> T {
        try guardOpen()
        do {
            return try database.read(body)
        } catch {
            throw StoreError(error)
        }
    }

    func write(_ work: @escaping @Sendable (Database) throws -> Void) throws(StoreError) {
        try writer.perform(work)
    }

    /// The stored revision of a document, or `.notFound`.
    static func revision(of document: String, in db: Database) throws -> Int {
        guard let revision = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT revision FROM documents WHERE id = ?"), arguments: [document])
        else { throw StoreError.noDocument(document) }
        return revision
    }
}

// MARK: - Loading everything

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

// MARK: - Submitting writes

extension SQLiteStore {
    public func submit(_ writes: [StoreWrite], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let changeCount = writes.reduce(0) { $0 + $1.changeCount }
        // One job: stored all or none (a conflict undoes the job alone, see GroupCommitWriter).
        writer.submit(.init(changeCount: changeCount, work: .writes(writes), completion: completion))
    }


    static func run(_ write: StoreWrite, in db: Database) throws {
        switch write {
        case .append(let changes): try insert(changes, in: db)
        case .createDocument(let document, let snapshot): try createDocument(document, snapshot: snapshot, in: db)
        case .updateDocument(let document): try updateDocument(document, in: db)
        case .deleteDocument(let id): _ = try deleteDocument(id, in: db)
        case .addVersion(let version): try addVersion(version, in: db)
        case .removeCheckpoint(let document, let number): try removeCheckpoint(document: document, number: number, in: db)
        case .removeVersion(let document, let number): try removeVersion(document: document, number: number, in: db)
        case .nameVersion(let document, let number, let name): try nameVersion(document: document, number: number, name: name, in: db)
        case .writeSnapshot(let snapshot): try writeSnapshot(snapshot, in: db)
        case .trimChanges(let document, let through): try trimChanges(document: document, through: through, in: db)
        case .archive(let run): try archive(run, in: db)
        case .trimArchive(let document, let keepBytes): try trimArchive(document: document, keepBytes: keepBytes, in: db)
        case .upsertPasteboard(let pasteboard): try upsertPasteboard(pasteboard, in: db)
        case .deletePasteboard(let name): try deletePasteboard(name, in: db)
        case .upsertSession(let session): try upsertSession(session, in: db)
        case .deleteSession(let id): try deleteSession(id, in: db)
        case .setMeta(let key, let value): try setMeta(key, value, in: db)
        case .upsertUser(let user): try upsertUser(user, in: db)
        case .deleteUser(let id): try deleteUser(id, in: db)
        case .recordOpened(let person, let recent): try recordOpened(person: person, recent, in: db)
        case .forgetOpened(let person): try forgetOpened(person: person, in: db)
        }
    }
}
