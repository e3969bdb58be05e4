import Foundation
import Testing
@testable import TandemStore

/// The stores the contract tests run against: each test makes a fresh, empty one.
enum StoreKind: Sendable, Hashable, CaseIterable, CustomTestStringConvertible {
    case sqlite(Durability)
    case memory
    /// `PostgresStore` on the database `TANDEM_TEST_DATABASE_URL` names, in a schema of the
    /// test's own (see `PostgresTestDatabase`).
    case postgres

    /// Every implementation once (SQLite with its default durability), PostgreSQL when it
    /// runs here (see `postgresCases`).
    static let allCases: [StoreKind] = [.sqlite(.full), .memory] + postgresCases

    /// `[.postgres]` when a database is configured, and in CI (`CI=true`) even when none is,
    /// so that each PostgreSQL case fails loudly there instead of silently not running.
    /// Locally without a database they are left out (`PostgresTestDatabase.noteSkipped`).
    static let postgresCases: [StoreKind] =
        PostgresTestDatabase.url != nil || PostgresTestDatabase.inCI ? [.postgres] : []

    var testDescription: String {
        switch self {
        case .sqlite(let durability): "SQLite (\(durability))"
        case .memory: "in memory"
        case .postgres: "PostgreSQL"
        }
    }

    /// A new store: SQLite in `directory` (empty until then), one in memory, or PostgreSQL
    /// in the schema named after `directory` (dropped with it).
    func make(in directory: TemporaryDirectory) throws -> any DocumentStore {
        switch self {
        case .sqlite(let durability): try SQLiteStore(directory: directory.path, durability: durability)
        case .memory: InMemoryStore()
        case .postgres: try PostgresTestDatabase.store(for: directory)
        }
    }

    /// The store that `make(in:)` made, opened again after `close()`: nil for a store
    /// that keeps nothing once closed.
    func reopen(in directory: TemporaryDirectory) throws -> (any DocumentStore)? {
        switch self {
        case .sqlite, .postgres: try make(in: directory)
        case .memory: nil
        }
    }
}

/// The PostgreSQL the tests use: `TANDEM_TEST_DATABASE_URL` (scripts/test.sh starts a
/// throwaway cluster and sets it). Each test's store lives in a schema of its own,
/// `t_<the temporary directory's id>`, dropped when the directory is.
enum PostgresTestDatabase {
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment["TANDEM_TEST_DATABASE_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            "TANDEM_TEST_DATABASE_URL is not set but CI=true: the PostgreSQL contract tests cannot run "
                + "(scripts/test.sh starts a cluster and sets it)"
        }
    }

    static func store(for directory: TemporaryDirectory) throws -> PostgresStore {
        guard let url else { throw NotConfigured() }
        let schema = directory.schemaName
        directory.onRemove {
            guard let connection = try? PGConnection(conninfo: url, schema: nil) else { return }
            defer { connection.close() }
            try? connection.execute("DROP SCHEMA IF EXISTS \(PGConnection.identifier(schema)) CASCADE")
        }
        return try PostgresStore(url: url, schema: schema)
    }
}
