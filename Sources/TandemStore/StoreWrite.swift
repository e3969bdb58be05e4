/// One write of a batch handed to `DocumentStore.submit`: the same operations as the store's
/// blocking methods, as values, so a caller can queue them in order while it holds its own
/// lock and wait for them after releasing it.
public enum StoreWrite: Sendable {
    case append([StoredChange])
    /// Like `createDocument`: `.conflict` if a document has that id.
    case createDocument(StoredDocument, snapshot: StoredSnapshot?)
    case updateDocument(StoredDocument)
    /// Like `deleteDocument`, but absent is not an error (deleting twice is harmless).
    case deleteDocument(String)
    case addVersion(StoredVersion)
    /// Removes a version if it is an automatic checkpoint (one a newer checkpoint takes the
    /// place of); absent, or named meanwhile, it is left alone, and that is not an error.
    case removeCheckpoint(document: String, number: Int)
    /// Removes a version, whatever it is; `.notFound` if the document has no such version.
    case removeVersion(document: String, number: Int)
    /// Names a version (nil: no name) and makes it one autosave never replaces; `.notFound` if
    /// the document has no such version.
    case nameVersion(document: String, number: Int, name: String?)
    case writeSnapshot(StoredSnapshot)
    case trimChanges(document: String, through: Int)
    /// Keeps a run of changes that left the server's memory. A run starting where a kept one
    /// starts (another node's) is not stored again, and one of a document no longer stored
    /// is dropped: neither is an error.
    case archive(ArchivedRun)
    /// Removes a document's oldest archived runs until the rest hold at most `keepBytes`.
    case trimArchive(document: String, keepBytes: Int)
    case upsertPasteboard(StoredPasteboard)
    case deletePasteboard(String)
    case upsertSession(StoredSession)
    /// Like `deleteSession`: absent is not an error.
    case deleteSession(String)
    /// Sets (or with `nil` removes) a meta entry.
    case setMeta(String, [UInt8]?)
    /// Adds or replaces a user (by id); `.conflict` if another user has its name.
    case upsertUser(StoredUser)
    /// Removes a user and its stored sessions; absent is not an error.
    case deleteUser(String)
    /// Notes that `person` opened a document (`RecentDocument`), forgetting their oldest past
    /// the limit. A document no longer stored is not an error: nothing is noted.
    case recordOpened(person: String, RecentDocument)
    /// Forgets every document `person` opened (a guest's session or a user that ended).
    case forgetOpened(person: String)

    var isAppend: Bool {
        if case .append = self { return true }
        return false
    }

    /// Changes it appends, for the statistics.
    var changeCount: Int {
        if case .append(let changes) = self { return changes.count }
        return 0
    }
}
