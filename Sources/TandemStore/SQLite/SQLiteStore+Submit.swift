import GRDB

extension SQLiteStore {
    public func submit(_ writes: [StoreWrite], completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        let changeCount = writes.reduce(0) { $0 + $1.changeCount }
        // One job: stored all or none (a conflict undoes the job alone, see GroupCommitWriter).
        writer.submit(.init(changeCount: changeCount, work: .writes(writes), completion: completion))
    }

    public func onBatchCompleted(_ handler: @escaping @Sendable () -> Void) {
        writer.onBatchCompleted(handler)
    }

    static func run(_ write: StoreWrite, in db: Database) throws {
        switch write {
        case .append(let changes): try insert(changes, in: db)
        case .createDocument(let document, let snapshot): try createDocument(document, snapshot: snapshot, in: db)
        case .updateDocument(let document): try updateDocument(document, in: db)
        case .deleteDocument(let id): _ = try deleteDocument(id, in: db)
        case .addVersion(let version): try addVersion(version, in: db)
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
