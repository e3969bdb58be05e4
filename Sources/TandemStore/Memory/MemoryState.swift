/// Everything an `InMemoryStore` holds, and its writes with the rules `SQLiteStore` enforces
/// (the same checks in the same order, so the same error for the same write). Only the
/// writer thread mutates it, one unit at a time (`unit`), under the store's lock.
struct MemoryState: Sendable {
    struct Document: Sendable {
        var row: StoredDocument
        /// The last stored revision.
        var revision: Int
        /// The stored changes: consecutive and ending at `revision`, or none. Trimmed
        /// revisions are gone.
        var changes: [StoredChange] = []
        var snapshot: StoredSnapshot?
        var versions: [Int: StoredVersion] = [:]
        /// Archived runs by first revision.
        var archive: [Int: ArchivedRun] = [:]
    }

    private(set) var documents: [MemoryKey: Document] = [:]
    private(set) var sessions: [MemoryKey: StoredSession] = [:]
    private(set) var users: [MemoryKey: StoredUser] = [:]
    private(set) var pasteboards: [MemoryKey: StoredPasteboard] = [:]
    private(set) var meta: [MemoryKey: [UInt8]] = [:]
    /// By person: the documents they opened, with when.
    private(set) var recent: [MemoryKey: [String: RecentDocument]] = [:]
    /// What undoes the current unit's writes, newest last (see `unit`).
    private var undoLog: [Undo] = []

    /// The inverse of one write: enough to put back what it replaced, no copy of the rest.
    private enum Undo {
        /// The whole entry as it was (a document created or deleted).
        case document(MemoryKey, Document?)
        case row(MemoryKey, StoredDocument)
        /// Drop the last `count` changes and go back to `revision`.
        case appended(MemoryKey, count: Int, revision: Int)
        /// Put these back in front.
        case trimmed(MemoryKey, [StoredChange])
        case snapshot(MemoryKey, StoredSnapshot?)
        /// The version as it was under that number (nil: none).
        case version(MemoryKey, number: Int, StoredVersion?)
        case archive(MemoryKey, [Int: ArchivedRun])
        case session(MemoryKey, StoredSession?)
        case user(MemoryKey, StoredUser?)
        case pasteboard(MemoryKey, StoredPasteboard?)
        case meta(MemoryKey, [UInt8]?)
        case recent(MemoryKey, [String: RecentDocument]?)
    }

    /// Runs `body` as one unit, like one of the writer's jobs in its savepoint: all of its
    /// writes stay, or (when it throws) none of them does.
    mutating func unit(_ body: (inout MemoryState) throws(StoreError) -> Void) -> Result<Void, StoreError> {
        undoLog.removeAll(keepingCapacity: true)
        defer { undoLog.removeAll(keepingCapacity: true) }
        do {
            try body(&self)
            return .success(())
        } catch {
            for undo in undoLog.reversed() { rollBack(undo) }
            return .failure(error)
        }
    }

    private mutating func rollBack(_ undo: Undo) {
        switch undo {
        case .document(let key, let document): documents[key] = document
        case .row(let key, let row): documents[key]!.row = row
        case .appended(let key, let count, let revision):
            documents[key]!.changes.removeLast(count)
            documents[key]!.revision = revision
        case .trimmed(let key, let changes): documents[key]!.changes.insert(contentsOf: changes, at: 0)
        case .snapshot(let key, let snapshot): documents[key]!.snapshot = snapshot
        case .version(let key, let number, let version): documents[key]!.versions[number] = version
        case .archive(let key, let archive): documents[key]!.archive = archive
        case .session(let key, let session): sessions[key] = session
        case .user(let key, let user): users[key] = user
        case .pasteboard(let key, let pasteboard): pasteboards[key] = pasteboard
        case .meta(let key, let value): meta[key] = value
        case .recent(let key, let value): recent[key] = value
        }
    }

    /// One write of a submitted unit.
    mutating func run(_ write: StoreWrite) throws(StoreError) {
        switch write {
        case .append(let changes): try append(changes)
        case .createDocument(let document, let snapshot): try createDocument(document, snapshot: snapshot)
        case .updateDocument(let document): try updateDocument(document)
        case .deleteDocument(let id): _ = deleteDocument(id)
        case .addVersion(let version): try addVersion(version)
        case .removeCheckpoint(let document, let number): removeCheckpoint(document: document, number: number)
        case .removeVersion(let document, let number): try removeVersion(document: document, number: number)
        case .nameVersion(let document, let number, let name): try nameVersion(document: document, number: number, name: name)
        case .writeSnapshot(let snapshot): try writeSnapshot(snapshot)
        case .trimChanges(let document, let through): try trimChanges(document: document, through: through)
        case .archive(let run): archive(run)
        case .trimArchive(let document, let keepBytes): trimArchive(document: document, keepBytes: keepBytes)
        case .upsertPasteboard(let pasteboard): upsertPasteboard(pasteboard)
        case .deletePasteboard(let name): deletePasteboard(name)
        case .upsertSession(let session): try upsertSession(session)
        case .deleteSession(let id): deleteSession(id)
        case .setMeta(let key, let value): setMeta(key, value)
        case .upsertUser(let user): try upsertUser(user)
        case .deleteUser(let id): deleteUser(id)
        case .recordOpened(let person, let opened): recordOpened(person: person, opened)
        case .forgetOpened(let person): put(nil, at: MemoryKey(person), in: \.recent, undo: Undo.recent)
        }
    }

    /// The stored document, or `.notFound`.
    func document(_ id: String) throws(StoreError) -> Document {
        guard let document = documents[MemoryKey(id)] else { throw .noDocument(id) }
        return document
    }

    // MARK: Documents

    mutating func createDocument(_ document: StoredDocument, snapshot: StoredSnapshot?) throws(StoreError) {
        if let snapshot, snapshot.documentID != document.id {
            throw .conflict("snapshot of \(snapshot.documentID) given for \(document.id)")
        }
        let key = MemoryKey(document.id)
        if documents[key] != nil { throw .conflict("document \(document.id) exists") }
        try NotNull.check(document)
        undoLog.append(.document(key, nil))
        documents[key] = Document(row: document, revision: snapshot?.revision ?? 0, snapshot: snapshot)
    }

    mutating func updateDocument(_ document: StoredDocument) throws(StoreError) {
        let key = MemoryKey(document.id)
        guard let old = documents[key]?.row else { throw .noDocument(document.id) }
        try NotNull.check(document)
        undoLog.append(.row(key, old))
        documents[key]!.row = document
    }

    /// False if there was no such document.
    mutating func deleteDocument(_ id: String) -> Bool {
        let key = MemoryKey(id)
        guard let old = documents.removeValue(forKey: key) else { return false }
        undoLog.append(.document(key, old))
        for (person, opened) in recent where opened[id] != nil {
            var kept = opened
            kept[id] = nil
            put(kept, at: person, in: \.recent, undo: Undo.recent)
        }
        return true
    }

    // MARK: Change log

    /// Each document's changes must start one past its stored revision, consecutive; the
    /// first refusal fails the whole append (the unit undoes what went before).
    mutating func append(_ changes: [StoredChange]) throws(StoreError) {
        for (id, changes) in AppendRules.byDocument(changes) {
            let revisions = try AppendRules.revisions(of: changes, document: id)
            let key = MemoryKey(id)
            guard let stored = documents[key]?.revision else { throw .noDocument(id) }
            let (previous, overflow) = revisions.lowerBound.subtractingReportingOverflow(1)
            guard !overflow, previous == stored else { throw .notNext(id, stored: stored, first: revisions.lowerBound) }
            undoLog.append(.appended(key, count: changes.count, revision: stored))
            documents[key]!.changes.append(contentsOf: changes)
            documents[key]!.revision = revisions.upperBound
        }
    }

    /// Keeps the stored snapshot if it is newer; `.conflict` past the stored revision.
    mutating func writeSnapshot(_ snapshot: StoredSnapshot) throws(StoreError) {
        let key = MemoryKey(snapshot.documentID)
        let document = try document(snapshot.documentID)
        guard snapshot.revision >= 0, snapshot.revision <= document.revision else {
            throw .conflict("snapshot at \(snapshot.revision) but \(snapshot.documentID) is at revision \(document.revision)")
        }
        if let stored = document.snapshot, stored.revision > snapshot.revision { return }
        undoLog.append(.snapshot(key, document.snapshot))
        documents[key]!.snapshot = snapshot
    }

    mutating func trimChanges(document id: String, through: Int) throws(StoreError) {
        let key = MemoryKey(id)
        let count = try document(id).changes.prefix { $0.revision <= through }.count
        guard count > 0 else { return }
        undoLog.append(.trimmed(key, Array(documents[key]!.changes[..<count])))
        documents[key]!.changes.removeFirst(count)
    }

    // MARK: Archive

    mutating func archive(_ run: ArchivedRun) {
        let key = MemoryKey(run.documentID)
        guard let archive = documents[key]?.archive, archive[run.first] == nil else { return }
        undoLog.append(.archive(key, archive))
        documents[key]!.archive[run.first] = run
    }

    mutating func trimArchive(document id: String, keepBytes: Int) {
        let key = MemoryKey(id)
        guard let archive = documents[key]?.archive else { return }
        var newer = 0
        var kept = archive
        for first in archive.keys.sorted(by: >) {
            newer += archive[first]!.payload.count
            if newer > keepBytes { kept[first] = nil }
        }
        guard kept.count != archive.count else { return }
        undoLog.append(.archive(key, archive))
        documents[key]!.archive = kept
    }

    // MARK: Versions

    /// SQLite checks NOT NULL before the primary key, and says the same.
    mutating func addVersion(_ version: StoredVersion) throws(StoreError) {
        let key = MemoryKey(version.documentID)
        let taken = try document(version.documentID).versions[version.number] != nil
        try NotNull.check(version)
        if taken { throw .conflict("UNIQUE constraint failed: versions.document, versions.number") }
        undoLog.append(.version(key, number: version.number, nil))
        documents[key]!.versions[version.number] = version
    }

    mutating func removeCheckpoint(document id: String, number: Int) {
        let key = MemoryKey(id)
        guard let removed = documents[key]?.versions[number], removed.automatic else { return }
        undoLog.append(.version(key, number: number, removed))
        documents[key]!.versions[number] = nil
    }

    mutating func removeVersion(document id: String, number: Int) throws(StoreError) {
        let key = MemoryKey(id)
        guard let removed = documents[key]?.versions[number] else { throw .notFound("no version \(number) of document \(id)") }
        undoLog.append(.version(key, number: number, removed))
        documents[key]!.versions[number] = nil
    }

    mutating func nameVersion(document id: String, number: Int, name: String?) throws(StoreError) {
        let key = MemoryKey(id)
        guard var version = documents[key]?.versions[number] else { throw .notFound("no version \(number) of document \(id)") }
        undoLog.append(.version(key, number: number, version))
        (version.name, version.automatic) = (name, false)
        documents[key]!.versions[number] = version
    }

    // MARK: Sessions, pasteboards, meta

    mutating func upsertSession(_ session: StoredSession) throws(StoreError) {
        try NotNull.check(session)
        put(session, at: MemoryKey(session.id), in: \.sessions, undo: Undo.session)
    }

    /// Absent is no error.
    mutating func upsertUser(_ user: StoredUser) throws(StoreError) {
        if users.values.contains(where: { $0.name == user.name && $0.id != user.id }) {
            throw .conflict("a user named \(user.name) exists")
        }
        let key = MemoryKey(user.id)
        undoLog.append(.user(key, users[key]))
        users[key] = user
    }

    mutating func deleteUser(_ id: String) {
        for (key, session) in sessions where session.userID == id { deleteSession(key.string) }
        let key = MemoryKey(id)
        guard let old = users.removeValue(forKey: key) else { return }
        undoLog.append(.user(key, old))
    }

    mutating func deleteSession(_ id: String) {
        put(nil, at: MemoryKey(id), in: \.sessions, undo: Undo.session)
    }

    /// Moves `lastSeen` forward only, of sessions still stored.
    mutating func updateSessionsLastSeen(_ lastSeen: [String: Double]) {
        for (id, time) in lastSeen {
            let key = MemoryKey(id)
            guard var session = sessions[key], session.lastSeen < time else { continue }
            session.lastSeen = time
            put(session, at: key, in: \.sessions, undo: Undo.session)
        }
    }

    mutating func upsertPasteboard(_ pasteboard: StoredPasteboard) {
        put(pasteboard, at: MemoryKey(pasteboard.name), in: \.pasteboards, undo: Undo.pasteboard)
    }

    /// Absent is no error.
    mutating func deletePasteboard(_ name: String) {
        put(nil, at: MemoryKey(name), in: \.pasteboards, undo: Undo.pasteboard)
    }

    /// As SQLite's: only a stored document is noted, a later time wins, the oldest past the
    /// limit go.
    mutating func recordOpened(person: String, _ opened: RecentDocument) {
        guard documents[MemoryKey(opened.documentID)] != nil else { return }
        let key = MemoryKey(person)
        var list = recent[key] ?? [:]
        if (list[opened.documentID]?.opened ?? -.infinity) <= opened.opened { list[opened.documentID] = opened }
        if list.count > RecentDocument.limit {
            let kept = list.values.sorted(by: Self.latestFirst).prefix(RecentDocument.limit)
            list = Dictionary(uniqueKeysWithValues: kept.map { ($0.documentID, $0) })
        }
        put(list, at: key, in: \.recent, undo: Undo.recent)
    }

    /// Latest first, ties by id.
    func recentDocuments(person: String) -> [RecentDocument] {
        (recent[MemoryKey(person)] ?? [:]).values.sorted(by: Self.latestFirst)
    }

    private static func latestFirst(_ a: RecentDocument, _ b: RecentDocument) -> Bool {
        a.opened != b.opened ? a.opened > b.opened : a.documentID < b.documentID
    }

    /// Sets, or with `nil` removes.
    mutating func setMeta(_ key: String, _ value: [UInt8]?) {
        put(value, at: MemoryKey(key), in: \.meta, undo: Undo.meta)
    }

    /// Replaces (with `nil` removes) one entry of a table, noting what it held.
    private mutating func put<Value>(_ value: Value?, at key: MemoryKey, in table: WritableKeyPath<MemoryState, [MemoryKey: Value]>,
                                     undo: (MemoryKey, Value?) -> Undo) {
        undoLog.append(undo(key, self[keyPath: table][key]))
        self[keyPath: table][key] = value
    }
}
