/// How hard a commit is pushed to the disk before it is acknowledged (SQLite `synchronous`,
/// always in WAL mode).
///
/// - `full`: every group commit is on disk before its completions run: SQLite writes the WAL
///   (`synchronous=NORMAL`, so checkpoints still sync) and the store's syncer `fdatasync`s it,
///   overlapping the next batch's writing. Nothing acknowledged is lost, neither on process
///   crash nor on OS crash or power loss.
/// - `normal`: the WAL is fsynced only at checkpoints. A process crash (`kill -9`) loses
///   nothing acknowledged; an OS crash or power loss may lose the last acknowledged commits
///   (never corrupts the database).
/// - `off`: no fsync at all. A process crash still loses nothing (the data is in the OS page
///   cache and WAL keeps the file consistent); an OS crash or power loss may lose recent
///   commits and, rarely, damage the database.
public enum Durability: String, Sendable, CaseIterable {
    case full, normal, off

    /// The value of `PRAGMA synchronous` that SQLite reads back for this mode: `full` is
    /// NORMAL plus the store's own flush of the WAL before completing.
    var pragmaValue: Int {
        switch self {
        case .off: 0
        case .normal, .full: 1
        }
    }
}
