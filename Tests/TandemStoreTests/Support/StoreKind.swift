import Testing
import TandemStore

/// The stores the contract tests run against: each test makes a fresh, empty one.
enum StoreKind: Sendable, Hashable, CaseIterable, CustomTestStringConvertible {
    case sqlite(Durability)
    case memory

    /// Every implementation once (SQLite with its default durability).
    static let allCases: [StoreKind] = [.sqlite(.full), .memory]

    var testDescription: String {
        switch self {
        case .sqlite(let durability): "SQLite (\(durability))"
        case .memory: "in memory"
        }
    }

    /// A new store: SQLite in `directory` (empty until then), or one in memory.
    func make(in directory: TemporaryDirectory) throws -> any DocumentStore {
        switch self {
        case .sqlite(let durability): try SQLiteStore(directory: directory.path, durability: durability)
        case .memory: InMemoryStore()
        }
    }

    /// The store that `make(in:)` made, opened again after `close()`: nil for a store
    /// that keeps nothing once closed.
    func reopen(in directory: TemporaryDirectory) throws -> (any DocumentStore)? {
        switch self {
        case .sqlite: try make(in: directory)
        case .memory: nil
        }
    }
}
