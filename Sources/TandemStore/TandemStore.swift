import GRDB

/// TandemStore: durable change logs, snapshots, versions.
public enum TandemStore {
    public static let engine = "SQLite via GRDB"
}
