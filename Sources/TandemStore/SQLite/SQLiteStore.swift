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
