import Dispatch
import Foundation
import GRDB

/// The single writer behind `SQLiteStore`: every write becomes a job in one queue; the writer
/// thread takes all queued jobs, runs them in ONE transaction, commits once, then completes
/// them all. Fifty threads appending at once thus cost one commit (one fsync with `.full`)
/// per batch, and the appends of consecutive jobs to one document one `UPDATE` between them.
/// Only a batch in which a job conflicts is run again with a savepoint per job, so that the
/// conflicting job is undone alone.
///
/// A failure that is not a conflict (disk full, I/O error) aborts the whole transaction and
/// fails every job in the batch: nothing is reported committed that is not. The connection
/// stays open and the next batch is tried afresh, so the store recovers by itself.
final class GroupCommitWriter: Sendable {
    struct Job: Sendable {
        enum Work: Sendable {
            /// Kept as data so that the appends of consecutive jobs can be merged.
            case writes([StoreWrite])
            case closure(@Sendable (Database) throws -> Void)
        }

        /// Changes this job appends, for the statistics.
        var changeCount: Int
        var work: Work
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    private struct Queue {
        var jobs: [Job] = []
        var closing = false
    }

    private let database: DatabasePool
    private let queue = Locked(Queue())
    private let counters = Locked(StoreStatistics())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The writer thread, so that a blocking call from a completion fails instead of deadlocking.
    private let thread = Locked<pthread_t?>(nil)
    /// Boxed: a closure kept directly as a generic lock's value is re-wrapped in two
    /// reabstraction thunks by every `withLock` (inout in and back out), so the call grew
    /// one level deeper per batch.
    private let batchCompleted = Locked<BatchHandler?>(nil)

    private final class BatchHandler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    init(database: DatabasePool) {
        self.database = database
        let thread = Thread { [self] in run() }
        thread.name = "TandemStore writer"
        thread.start()
    }

    var statistics: StoreStatistics { counters.withLock { $0 } }

    /// Runs `handler` on the writer thread after the completions of every batch.
    func onBatchCompleted(_ handler: @escaping @Sendable () -> Void) {
        batchCompleted.withLock { $0 = BatchHandler(handler) }
    }

    var isClosed: Bool { queue.withLock { $0.closing } }

    /// Queues a job; fails it at once with `.closed` after `close()`.
    func submit(_ job: Job) {
        let accepted = queue.withLock { queue in
            guard !queue.closing else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted {
            wake.signal()
        } else {
            job.completion(.failure(.closed))
        }
    }

    /// Queues `work` and blocks until it committed or failed.
    func perform(changeCount: Int = 0, _ work: @escaping @Sendable (Database) throws -> Void) throws(StoreError) {
        if let writer = thread.withLock({ $0 }), pthread_equal(writer, pthread_self()) != 0 {
            throw .io("a blocking store call from an append completion would deadlock the writer")
        }
        let outcome = Outcome()
        submit(Job(changeCount: changeCount, work: .closure(work)) { result in outcome.finish(result) })
        try outcome.wait().get()
    }

    /// Lets the writer finish every queued job, then stops it. Idempotent.
    func close() {
        let first = queue.withLock { queue in
            defer { queue.closing = true }
            return !queue.closing
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        thread.withLock { $0 = pthread_self() }
        var lastBatch = 0
        while true {
            wake.wait()
            if lastBatch > 1 { gather() }
            let (batch, closing) = queue.withLock { queue in
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return (queue.jobs, queue.closing)
            }
            if !batch.isEmpty {
                lastBatch = batch.count
                commit(batch)
                batchCompleted.withLock { $0 }?.run()
            }
            // After `closing` is seen no job can be queued any more, so this drain was the last.
            if closing { break }
        }
        finished.signal()
    }

    /// Lets more jobs join the batch for a moment when the previous batch had several: with
    /// writers busy, each commit otherwise took only the few that came during the previous
    /// one's fsync (10 changes per transaction from 50 typists, 24 this way) and paid a
    /// transaction and an fsync for them. A lone writer never waits (its batches have one
    /// job), as Postgres's commit_delay waits only with commit_siblings. Measured against no
    /// wait and against waiting while jobs keep arriving (up to 1 ms, 40 per transaction, but
    /// clients then move in lockstep with the commits): 200 µs gave the most edits a second,
    /// the lowest p99 and the least CPU per edit (bench-load, 3 interleaved rounds).
    private func gather() {
        usleep(Self.gatherMicroseconds)
    }

    static let gatherMicroseconds: UInt32 = 200

    private func commit(_ batch: [Job]) {
        let results: [Result<Void, StoreError>]
        do {
            results = try database.writeWithoutTransaction { db in
                try Self.commitTogether(batch, in: db) ?? Self.commitEachInSavepoint(batch, in: db)
            }
        } catch {
            let failure = StoreError(error)
            counters.withLock {
                $0.failedTransactions += 1
                $0.operations += batch.count
            }
            for job in batch { job.completion(.failure(failure)) }
            return
        }
        counters.withLock { counters in
            counters.transactions += 1
            counters.operations += batch.count
            for (job, result) in zip(batch, results) where job.changeCount > 0 {
                if case .success = result { counters.appendedChanges += job.changeCount }
            }
        }
        for (job, result) in zip(batch, results) { job.completion(result) }
    }
}

extension GroupCommitWriter {
    /// The batch as one transaction, no savepoint per job: nil (rolled back, nothing stored)
    /// when a job conflicts. Conflicts are rare, and a savepoint costs every job two more
    /// statements; jobs only write to the database, so running them again is safe.
    /// Consecutive jobs that only append are stored as one append: a busy document's batch
    /// moves its revision once, not once per keystroke.
    static func commitTogether(_ batch: [Job], in db: Database) throws -> [Result<Void, StoreError>]? {
        var conflicted = false
        try db.inTransaction(.immediate) {
            var appends: [StoredChange] = []
            do {
                for job in batch {
                    if case .writes(let writes) = job.work, writes.allSatisfy(\.isAppend) {
                        for case .append(let changes) in writes { appends += changes }
                        continue
                    }
                    if !appends.isEmpty {
                        try SQLiteStore.insert(appends, in: db)
                        appends.removeAll(keepingCapacity: true)
                    }
                    try job.work.run(in: db)
                }
                if !appends.isEmpty { try SQLiteStore.insert(appends, in: db) }
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
        try db.inTransaction(.immediate) {
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

extension GroupCommitWriter.Job.Work {
    func run(in db: Database) throws {
        switch self {
        case .writes(let writes): for write in writes { try SQLiteStore.run(write, in: db) }
        case .closure(let work): try work(db)
        }
    }
}

/// A one-shot result handed from the writer thread to a waiting caller.
private final class Outcome: Sendable {
    private let result = Locked<Result<Void, StoreError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<Void, StoreError>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait() -> Result<Void, StoreError> {
        done.wait()
        return result.withLock { $0! }
    }
}
