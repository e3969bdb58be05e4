import Dispatch
import Foundation
import GRDB

/// The single writer behind `SQLiteStore`: every write becomes a job in one queue; the writer
/// thread (a `WriterThread`) takes all queued jobs, runs them in ONE transaction, commits
/// once, then completes them all. Any number of threads appending at once thus share one
/// commit (one fsync with `.full`) per batch, and the appends of consecutive jobs to one
/// document one `UPDATE` between them.
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
final class GroupCommitWriter: ThreadedWriter {
    struct Job: WriterJob {
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
    /// The queue, the writer thread, `submit` and `close` (see there).
    let thread = WriterThread<Job>()

    /// The WAL file the syncer flushes; nil when SQLite's own `synchronous` is the policy.
    private let walPath: String?
    private let written = Locked(Written())
    private let syncWake = DispatchSemaphore(value: 0)
    /// Signalled when a flush ends while the writer gathers for it (see `gather`).
    private let flushEnded = DispatchSemaphore(value: 0)
    /// Signalled each time the syncer takes the written batches for a flush.
    private let taken = DispatchSemaphore(value: 0)
    private let syncFinished = DispatchSemaphore(value: 0)
    /// How long a flush and a commit take, on average (ns): the writer times the next
    /// commit to be done just as the flush in progress ends (see `gather`).
    private let flushNanos = Locked(MovingAverage())
    private let commitNanos = Locked(MovingAverage())

    /// `walPath`: flush this WAL file on the syncer thread before completing (see above).
    init(database: DatabasePool, walPath: String? = nil) {
        self.database = database
        self.walPath = walPath
        var committer = WriterThread<Job>.Committer(commit: { [self] batch in timedCommit(batch) },
                                                    gather: { [self] in gather() })
        if walPath != nil {
            // One batch waits for the flush in progress, no more: the jobs arriving meanwhile
            // gather into the next batch instead of each paying a transaction of its own
            // (the WAL frames of the document's pages are written again per transaction).
            committer.waitForTurn = { [self] in
                while written.withLock({ !$0.batches.isEmpty }) { taken.wait() }
            }
            // The syncer completes the batch once its frames are on disk.
            committer.handOff = { [self] jobs, results in
                written.withLock { $0.batches.append((jobs, results)) }
                syncWake.signal()
            }
            committer.stopped = { [self] in
                written.withLock { $0.closing = true }
                syncWake.signal()
                syncFinished.wait()
            }
        }
        thread.start("TandemStore writer", committer)
        if walPath != nil {
            let syncer = Thread { [self] in runSyncer() }
            syncer.name = "TandemStore syncer"
            syncer.start()
        }
    }

    /// Queues `work` and blocks until it committed or failed.
    func perform(changeCount: Int = 0, _ work: @escaping @Sendable (Database) throws -> Void) throws(StoreError) {
        try thread.perform { Job(changeCount: changeCount, work: .closure(work), completion: $0) }
    }

    /// The syncer: one fdatasync for every batch written since the last, then their
    /// completions in commit order. A failed flush fails every job that had committed (its
    /// rows may be in the file, but nothing is acknowledged that is not known to be on disk);
    /// a job that had failed keeps its own error.
    private func runSyncer() {
        thread.noteCompletingThread()
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
                    thread.counters.withLock {
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
                    case .success: thread.complete(batch.jobs, batch.results)
                    case .failure(let error): thread.complete(batch.jobs, batch.results.map { $0.flatMap { .failure(error) } })
                    }
                }
            }
            if closing { break }
        }
        wal.close()
        syncFinished.signal()
    }

    /// Lets more jobs join the batch for a moment when the previous batch had several: with
    /// writers busy, each commit otherwise took only the few that came during the previous
    /// one's fsync and paid a transaction and an fsync for them. A lone writer never waits
    /// (its batches have one job), as Postgres's commit_delay waits only with commit_siblings.
    /// The wait is short and fixed (`gatherMicroseconds`), not "while jobs keep arriving",
    /// which would put clients in lockstep with the commits (see docs/performance.md).
    ///
    /// While the syncer flushes, the batch cannot be flushed before that flush ends anyway, so
    /// when flushes are long the writer waits longer, until it can just commit in time (the
    /// flush's start plus the average flush, less the average commit). The clients answered
    /// by the previous flush then come back in time for this batch instead of waiting for the
    /// next. Never shorter than the fixed wait: with short flushes, that timing alone would
    /// take a batch before those clients are back.
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

    /// `commit`, timed for the statistics and for `gather`.
    private func timedCommit(_ batch: [Job]) -> [Result<Void, StoreError>] {
        let started = Self.now()
        let results = commit(batch)
        let took = Self.now() - started
        commitNanos.withLock { $0.add(took) }
        thread.counters.withLock { $0.commitNanoseconds += took }
        return results
    }

    /// Runs the batch as one transaction and returns each job's result (completed by the caller).
    private func commit(_ batch: [Job]) -> [Result<Void, StoreError>] {
        let results: [Result<Void, StoreError>]
        do {
            results = try database.writeWithoutTransaction { db in
                try Self.commitTogether(batch, in: db) ?? Self.commitEachInSavepoint(batch, in: db)
            }
        } catch {
            return thread.failed(batch, StoreError(error))
        }
        return thread.committed(batch, results)
    }
}
