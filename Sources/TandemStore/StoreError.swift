/// Why a store operation failed. Whatever the error, nothing of the failed operation (or of
/// the group-commit batch it was part of, for `.io`, `.full`, `.readOnly`, `.corrupt`) was stored.
public enum StoreError: Error, Sendable, Hashable {
    /// The disk is full (SQLITE_FULL, ENOSPC). Retrying after space is freed succeeds.
    case full
    /// The database or its directory cannot be written (SQLITE_READONLY, EROFS).
    case readOnly
    /// Any other I/O or engine failure, with the engine's message.
    case io(String)
    /// The write contradicts what is stored: a revision gap or duplicate, a taken id or number.
    /// Only the offending operation fails; others in the same batch are committed.
    case conflict(String)
    /// The named document (or record) does not exist.
    case notFound(String)
    /// The database file is damaged or is not a database.
    case corrupt(String)
    /// The store was closed.
    case closed
    /// This node no longer holds the document's lease (`PostgresLeases`): another node owns it
    /// now, and only the owner may write it. Only the writes to that document fail.
    case leaseLost(document: String)
}
