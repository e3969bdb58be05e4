import GRDB

// MARK: - Transactions

extension GroupCommitWriter {
    /// The batch as one transaction, no savepoint per job: nil (rolled back, nothing stored)
    /// when a job conflicts. Conflicts are rare, and a savepoint costs every job two more
    /// statements; jobs only write to the database, so running them again is safe.
    /// Consecutive jobs that only append are stored as one append: a busy document's batch
    /// moves its revision once, not once per keystroke.
    static func commitTogether(_ batch: [Job], in db: Database) throws -> [Result<Void, StoreError>]? {
        var conflicted = false
        try db.inCachedTransaction {
            do {
                try MergedAppends.run(batch, writes: \.work.dataWrites,
                                      insert: { try SQLiteStore.insert($0, in: db) },
                                      run: { try $0.work.run(in: db) })
            } catch let error where StoreError(error).isConflict {
                conflicted = true
                return .rollback
            }
            return .commit
        }
        return conflicted ? nil : Array(repeating: .success(()), count: batch.count)
    }

    /// Each job in its own savepoint: a conflicting job is undone alone, the rest commit.
    static func commitEachInSavepoint(_ batch: [Job], in db: Database) throws -> [Result<Void, StoreError>] {
        var results: [Result<Void, StoreError>] = []
        results.reserveCapacity(batch.count)
        try db.inCachedTransaction {
            for job in batch {
                do {
                    try db.inSavepoint {
                        try job.work.run(in: db)
                        return .commit
                    }
                    results.append(.success(()))
                } catch let error where StoreError(error).isConflict {
                    // The savepoint is rolled back: only this job is undone.
                    results.append(.failure(StoreError(error)))
                }
            }
            return .commit
        }
        return results
    }
}

extension Database {
    /// `inTransaction(.immediate)` with BEGIN and COMMIT from the statement cache: GRDB's
    /// compiles both anew for every transaction, and the writer runs one per group commit.
    /// A failed body or COMMIT rolls back, as GRDB's does.
    func inCachedTransaction(_ body: () throws -> TransactionCompletion) throws {
        try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            switch try body() {
            case .commit: try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            case .rollback: try rollback()
            }
        } catch {
            if !isInsideTransaction { throw error }
            try? rollback()
            throw error
        }
    }
}

extension GroupCommitWriter.Job.Work {
    /// The writes, when kept as data.
    var dataWrites: [StoreWrite]? {
        if case .writes(let writes) = self { writes } else { nil }
    }

    func run(in db: Database) throws {
        switch self {
        case .writes(let writes): for write in writes { try SQLiteStore.run(write, in: db) }
        case .closure(let work): try work(db)
        }
    }
}
