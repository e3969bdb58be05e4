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
///
/// Given a `walPath` (durability `full`), the fsync is not SQLite's: its commits only write the
/// WAL (`synchronous=NORMAL`), and a second thread, the syncer, `fdatasync`s the WAL file and
/// only then completes the batches written before that call, in order. The writer meanwhile
/// writes the next batch, so a commit's disk flush no longer holds up the ones behind it (as
/// in Postgres, whose WAL flush is not done under the lock that orders commits). Nothing is
/// completed before its frames are on disk: a WAL commit is durable once its frames are, and
/// SQLite's checkpoints (NORMAL) sync the WAL before they copy it and the database after.
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

    /// Batches committed to the WAL, waiting for the syncer's next fdatasync.
    private struct Written {
        var batches: [(jobs: [Job], results: [Result<Void, StoreError>])] = []
        var closing = false
        /// When the flush in progress began (monotonic ns), nil while the syncer waits.
        var flushStarted: UInt64?
        /// The writer is gathering until that flush ends: the syncer signals `flushEnded`.
        var gatherWaits = false
    }

    private let database: DatabasePool
    private let queue = Locked(WriterQueue<Job>())
    private let counters = Locked(StoreStatistics())
    private let healthState = Locked(StoreHealth.ok)
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

    /// The WAL file the syncer flushes; nil when SQLite's own `synchronous` is the policy.
    private let walPath: String?
    private let written = Locked(Written())
    private let syncWake = DispatchSemaphore(value: 0)
    /// Signalled when a flush ends while the writer gathers for it (see `gather`).
    private let flushEnded = DispatchSemaphore(value: 0)
    /// Signalled each time the syncer takes the written batches for a flush.
    private let taken = DispatchSemaphore(value: 0)
    private let syncFinished = DispatchSemaphore(value: 0)
    private let syncerThread = Locked<pthread_t?>(nil)
    /// How long a flush and a commit take, on average (ns): the writer times the next
    /// commit to be done just as the flush in progress ends (see `gather`).
    private let flushNanos = Locked(MovingAverage())
    private let commitNanos = Locked(MovingAverage())

    /// `walPath`: flush this WAL file on the syncer thread before completing (see above).
    init(database: DatabasePool, walPath: String? = nil) {
        self.database = database
        self.walPath = walPath
        let thread = Thread { [self] in run() }
        thread.name = "TandemStore writer"
        thread.start()
        if walPath != nil {
            let syncer = Thread { [self] in runSyncer() }
            syncer.name = "TandemStore syncer"
            syncer.start()
        }
    }

    var statistics: StoreStatistics { counters.withLock { $0 } }

    var health: StoreHealth { healthState.withLock { $0 } }

    /// Runs `handler` on the thread that completes batches (the writer, or the syncer) after
    /// the completions of each batch or group of batches.
    func onBatchCompleted(_ handler: @escaping @Sendable () -> Void) {
        batchCompleted.withLock { $0 = BatchHandler(handler) }
    }

    var isClosed: Bool { queue.withLock { $0.closing } }

    /// Queues a job; fails it at once with `.closed` after `close()`.
    func submit(_ job: Job) {
        let accepted = queue.withLock { $0.add(job) }
        if accepted {
            wake.signal()
        } else {
            job.completion(.failure(.closed))
        }
    }

    /// Queues `work` and blocks until it committed or failed.
    func perform(changeCount: Int = 0, _ work: @escaping @Sendable (Database) throws -> Void) throws(StoreError) {
        for completing in [thread.withLock({ $0 }), syncerThread.withLock({ $0 })] {
            if let completing, pthread_equal(completing, pthread_self()) != 0 {
                throw .io("a blocking store call from an append completion would deadlock the writer")
            }
        }
        let outcome = Outcome()
        submit(Job(changeCount: changeCount, work: .closure(work)) { result in outcome.finish(result) })
        try outcome.wait().get()
    }

    /// Lets the writer finish every queued job, then stops it. Idempotent.
    func close() {
        let first = queue.withLock { $0.close() }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        thread.withLock { $0 = pthread_self() }
        var lastBatch = 0
        while true {
            wake.wait()
            // One batch waits for the flush in progress, no more: the jobs arriving meanwhile
            // gather into the next batch instead of each paying a transaction of its own
            // (the WAL frames of the document's pages are written again per transaction).
            if walPath != nil {
                while written.withLock({ !$0.batches.isEmpty }) { taken.wait() }
            }
            if lastBatch > 1 { gather() }
            let (batch, closing) = queue.withLock { $0.takeAll() }
            if !batch.isEmpty {
                lastBatch = batch.count
                let started = Self.now()
                let results = commit(batch)
                let took = Self.now() - started
                commitNanos.withLock { $0.add(took) }
                counters.withLock { $0.commitNanoseconds += took }
                if walPath != nil {
                    written.withLock { $0.batches.append((batch, results)) }
                    syncWake.signal()
                } else {
                    complete(batch, results)
                    batchCompleted.withLock { $0 }?.run()
                }
            }
            // After `closing` is seen no job can be queued any more, so this drain was the last.
            if closing { break }
        }
        if walPath != nil {
            written.withLock { $0.closing = true }
            syncWake.signal()
            syncFinished.wait()
        }
        finished.signal()
    }

    /// The syncer: one fdatasync for every batch written since the last, then their
    /// completions in commit order. A failed flush fails every job that had committed (its
    /// rows may be in the file, but nothing is acknowledged that is not known to be on disk);
    /// a job that had failed keeps its own error.
    private func runSyncer() {
        syncerThread.withLock { $0 = pthread_self() }
        var wal = WALFile(path: walPath!)
        while true {
            syncWake.wait()
            let started = Self.now()
            let (batches, closing) = written.withLock { w in
                defer { w.batches.removeAll(keepingCapacity: true) }
                if !w.batches.isEmpty { w.flushStarted = started }
                return (w.batches, w.closing)
            }
            taken.signal()
            if !batches.isEmpty {
                // Batches that failed as a whole wrote nothing to flush, and keep their own error.
                let wroteSomething = batches.contains { $0.results.contains { if case .success = $0 { true } else { false } } }
                let flushed: Result<Void, StoreError> = wroteSomething ? wal.flush() : .success(())
                if wroteSomething, case .success = flushed {
                    let took = Self.now() - started
                    counters.withLock {
                        $0.walFlushes += 1
                        $0.walFlushNanoseconds += took
                    }
                    flushNanos.withLock { $0.add(took) }
                }
                let gatherWaits = written.withLock { w -> Bool in
                    w.flushStarted = nil
                    defer { w.gatherWaits = false }
                    return w.gatherWaits
                }
                if gatherWaits { flushEnded.signal() }
                for batch in batches {
                    switch flushed {
                    case .success: complete(batch.jobs, batch.results)
                    case .failure(let error): complete(batch.jobs, batch.results.map { $0.flatMap { .failure(error) } })
                    }
                }
                batchCompleted.withLock { $0 }?.run()
            }
            if closing { break }
        }
        wal.close()
        syncFinished.signal()
    }

    private func complete(_ batch: [Job], _ results: [Result<Void, StoreError>]) {
        noteHealth(results)
        for (job, result) in zip(batch, results) { job.completion(result) }
    }

    /// Before the completions, so a caller refused with an error already sees the store failing.
    private func noteHealth(_ results: [Result<Void, StoreError>]) {
        healthState.withLock { $0.note(results) }
    }

    /// Lets more jobs join the batch for a moment when the previous batch had several: with
    /// writers busy, each commit otherwise took only the few that came during the previous
    /// one's fsync and paid a transaction and an fsync for them. A lone writer never waits
    /// (its batches have one job), as Postgres's commit_delay waits only with commit_siblings.
    /// The short fixed wait (`gatherMicroseconds`) beat no wait and waiting while jobs keep
    /// arriving, which puts clients in lockstep with the commits (see docs/performance.md).
    ///
    /// While the syncer flushes, the batch cannot be flushed before that flush ends anyway, so
    /// when flushes are long the writer waits longer, until it can just commit in time (the
    /// flush's start plus the average flush, less the average commit). The clients answered
    /// by the previous flush then come back in time for this batch; taken after the fixed
    /// wait alone, it missed them, and each change waited for three flushes instead of two.
    /// (Only ever longer: with short flushes, timing alone took batches before the herd was back.)
    ///
    /// A flush that ends before that moment ends the wait too (the syncer signals it): flush
    /// times are skewed, so a wait timed by the mean mostly slept on past an idle disk.
    private func gather() {
        let start = Self.now()
        let least = start + UInt64(Self.gatherMicroseconds) * 1000
        let ready: UInt64? = written.withLock { w in
            guard let flushStarted = w.flushStarted else { return nil }
            let ready = flushStarted &+ flushNanos.withLock { $0.value } &- commitNanos.withLock { $0.value }
            guard ready > least else { return nil }
            w.gatherWaits = true
            return min(ready, start + Self.longestGatherNanos)
        }
        if let ready {
            if flushEnded.wait(timeout: .now() + .nanoseconds(Int(ready - start))) == .timedOut {
                // Unless the syncer signalled meanwhile: then its signal is taken here.
                let signalled = written.withLock { w in defer { w.gatherWaits = false }; return !w.gatherWaits }
                if signalled { flushEnded.wait() }
            }
        }
        let now = Self.now()
        if now < least { usleep(UInt32((least - now) / 1000)) }
    }

    static let gatherMicroseconds: UInt32 = 200
    /// A flush that takes longer than this (a stalled disk) is not waited out by gathering.
    static let longestGatherNanos: UInt64 = 5_000_000

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs the batch as one transaction and returns each job's result (completed by the caller).
    private func commit(_ batch: [Job]) -> [Result<Void, StoreError>] {
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
            return batch.map { _ in .failure(failure) }
        }
        counters.withLock { counters in
            counters.transactions += 1
            counters.operations += batch.count
            for (job, result) in zip(batch, results) where job.changeCount > 0 {
                if case .success = result { counters.appendedChanges += job.changeCount }
            }
        }
        return results
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
