/// Counters for metrics and tests. `transactions` counts committed write transactions, so
/// `appendedChanges / transactions` shows how well group commit batches.
public struct StoreStatistics: Sendable, Hashable {
    /// Committed transactions (one per group-commit batch).
    public var transactions: Int = 0
    /// Changes stored by committed appends.
    public var appendedChanges: Int = 0
    /// Write operations (appends and others) that reached the writer.
    public var operations: Int = 0
    /// Batches that failed as a whole (disk full, I/O error…).
    public var failedTransactions: Int = 0
    /// `fdatasync`s of the WAL by the syncer (durability `full`; each covers every batch
    /// written since the one before).
    public var walFlushes: Int = 0
    /// Time spent in those flushes and in committing transactions (ns): their means show
    /// how much of an edit's wait is the disk's and how much the writer's.
    public var walFlushNanoseconds: UInt64 = 0
    public var commitNanoseconds: UInt64 = 0

    public init() {}
}
