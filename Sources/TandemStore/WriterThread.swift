import Dispatch
import Foundation

/// A job for a `WriterThread`: the writer's own work, with what the thread needs of it.
protocol WriterJob: Sendable {
    /// Changes the job appends, counted in `StoreStatistics.appendedChanges` when it commits.
    var changeCount: Int { get }
    /// Called exactly once, with the job's result (see `WriterThread` for where and when).
    var completion: @Sendable (Result<Void, StoreError>) -> Void { get }
}

/// The thread every store writes on, and its queue: what `GroupCommitWriter` (SQLite),
/// `PostgresWriter` and `MemoryWriter` share. Jobs are queued by `submit` (or `perform`, which
/// waits); the thread takes all queued jobs at once as a batch, has the writer commit them
/// (`Committer.commit`: one transaction, one group commit), then completes them.
///
/// ## Threads
///
/// One thread, named by `start`, runs everything of the `Committer`: it waits, gathers, takes
/// the batch, commits it and calls the jobs' completions. The exception is a writer that hands
/// its committed batches off (`Committer.handOff`, `GroupCommitWriter`'s syncer): the thread
/// that takes them calls `complete` itself, and registers with `noteCompletingThread`. The
/// store calls nothing of its caller's but those completions: it has no hooks.
///
/// ## Locks
///
/// The queue's lock is held only to add jobs, take them all, or mark the queue closing; the
/// health's only to read or set it. None is held while a job commits or completes: a
/// completion may submit more jobs (they make the next batch), read the store, or call
/// `close()`.
///
/// ## Order
///
/// Jobs commit in the order they were queued, and complete in that order: a batch is every
/// job queued since the one before, oldest first. Its jobs complete one after the other,
/// after their transaction committed (or failed) and before the next one begins. A batch is one transaction unless `Committer.alone`
/// says a job needs one of its own: then it is committed as runs (each such job alone, the
/// jobs between them together), each completed before the next run commits.
///
/// ## Health
///
/// `complete` notes each run's results in `health` before the first completion, so a caller
/// whose job failed already sees the store failing.
///
/// ## The deadlock guard
///
/// The completions run on the writer thread, which cannot wait for a job it has yet to
/// commit. So `perform`, on the writer thread or on a completing thread registered with
/// `noteCompletingThread`, throws `.io` at once instead of blocking forever; `close()`
/// there marks the queue closing but returns without waiting for the thread to stop.
///
/// ## Gathering
///
/// When the batch before had several jobs, the thread calls `Committer.gather` before it
/// takes the next one, so that jobs arriving meanwhile join it instead of each paying a
/// transaction of its own (see `GroupCommitWriter.gather()`). After a lone job it never waits.
///
/// ## Closing
///
/// `close()` marks the queue closing (no job is queued after that) and wakes the thread,
/// which commits and completes every job queued before, runs `Committer.stopped`, and
/// ends; then `close()` returns (to every caller, however many). A job submitted once the
/// queue is closing is completed with `.closed`, where `Refusals` says.
final class WriterThread<Job: WriterJob>: Sendable {
    /// Where a job submitted after `close()` is completed with `.closed`.
    enum Refusals: Sendable {
        /// At once, on the thread that submitted it.
        case onCaller
        /// On a serial queue of the writer's own (with this label), in submission order, once
        /// the thread has completed every job it drained and stopped: never on the caller's
        /// thread, where it might hold a lock its completion takes.
        case queued(label: String)
    }

    /// What a writer does with the batches its thread takes. Each closure runs on the
    /// writer thread (`stopped` too), so it may use what only that thread touches.
    struct Committer: Sendable {
        /// Commits the jobs (a batch, or one run of it) and returns each job's result, in
        /// order. The thread completes them (or hands them off) right after.
        var commit: @Sendable ([Job]) -> [Result<Void, StoreError>]
        /// Before taking a batch when the batch before had several jobs: waits a moment for
        /// more to join. Nil: never waits.
        var gather: (@Sendable () -> Void)? = nil
        /// Before taking every batch, even before gathering: waits until the writer can take
        /// one (`GroupCommitWriter`: until its syncer took the batches written before).
        var waitForTurn: (@Sendable () -> Void)? = nil
        /// Jobs that need a transaction of their own, in their place in the order
        /// (`PostgresWriter`'s sequenced units). Nil: a batch is always one transaction.
        var alone: (@Sendable (Job) -> Bool)? = nil
        /// Takes each committed run instead of completing it. Whoever receives the runs must
        /// call `complete`, in order (`GroupCommitWriter`'s syncer, after its flush).
        var handOff: (@Sendable ([Job], [Result<Void, StoreError>]) -> Void)? = nil
        /// After the batch's completions (never with `handOff`): what the batch committed is now
        /// visible in the process (`PostgresWriter`: its own feed entries are published).
        var published: (@Sendable () -> Void)? = nil
        /// After the last batch, before `close()` returns: releases what the writer holds.
        var stopped: (@Sendable () -> Void)? = nil
    }

    /// The writer's counters: its `commit` updates them (see `committed` and `failed`).
    let counters = Locked(StoreStatistics())
    private let queue = Locked(WriterQueue<Job>())
    private let healthState = Locked(StoreHealth.ok)
    private let wake = DispatchSemaphore(value: 0)
    /// Entered until the thread has completed its last batch and stopped.
    private let running = DispatchGroup()
    /// The writer thread, and any other thread that calls completions.
    private let completingThreads = Locked<[pthread_t]>([])
    private let refusals: DispatchQueue?

    init(refusals: Refusals = .onCaller) {
        switch refusals {
        case .onCaller: self.refusals = nil
        case .queued(let label): self.refusals = DispatchQueue(label: label)
        }
        running.enter()
    }

    /// Starts the thread, named `name`, that commits with `committer`. Call it once, at the
    /// end of the writer's `init`: `close()` waits for the thread.
    func start(_ name: String, _ committer: Committer) {
        let thread = Thread { [self] in run(committer) }
        thread.name = name
        thread.start()
    }

    var statistics: StoreStatistics { counters.withLock { $0 } }

    var health: StoreHealth { healthState.withLock { $0 } }

    /// True from the moment `close()` begins.
    var isClosed: Bool { queue.withLock { $0.closing } }

    /// Queues a job; refuses it with `.closed` (see `Refusals`) once closing.
    func submit(_ job: Job) {
        if queue.withLock({ $0.add(job) }) {
            wake.signal()
        } else if let refusals {
            refusals.async { [running] in
                running.wait()
                job.completion(.failure(.closed))
            }
        } else {
            job.completion(.failure(.closed))
        }
    }

    /// Queues the job `make` returns for a completion, and blocks until it committed or failed.
    func perform(_ make: (_ completion: @escaping @Sendable (Result<Void, StoreError>) -> Void) -> Job) throws(StoreError) {
        if isCompletingThread {
            throw .io("a blocking store call from an append completion would deadlock the writer")
        }
        // Refused at once: a queued refusal's completion waits behind the others, and this
        // may be one of them.
        if isClosed { throw .closed }
        let ticket = StoreTicket()
        submit(make { ticket.finish($0) })
        try ticket.wait().get()
    }

    /// Lets the thread finish every queued job, then stops it; returns once it has, except
    /// on a completing thread, which cannot wait for itself. Idempotent.
    func close() {
        if queue.withLock({ $0.close() }) { wake.signal() }
        if !isCompletingThread { running.wait() }
    }

    /// Registers the calling thread as one that calls completions (a hand-off's receiver),
    /// so that `perform` and `close()` there do not wait for the writer either.
    func noteCompletingThread() {
        let me = pthread_self()
        completingThreads.withLock { $0.append(me) }
    }

    var isCompletingThread: Bool {
        let me = pthread_self()
        return completingThreads.withLock { $0.contains { pthread_equal($0, me) != 0 } }
    }

    /// Notes the results in `health`, then calls the jobs' completions in order.
    func complete(_ jobs: [Job], _ results: [Result<Void, StoreError>]) {
        healthState.withLock { $0.note(results) }
        for (job, result) in zip(jobs, results) { job.completion(result) }
    }

    /// Counts a committed transaction of `jobs` (and the changes of those that succeeded),
    /// taking `nanoseconds`; returns `results`.
    func committed(_ jobs: [Job], _ results: [Result<Void, StoreError>], nanoseconds: UInt64 = 0) -> [Result<Void, StoreError>] {
        var appended = 0
        for (job, result) in zip(jobs, results) where job.changeCount > 0 {
            if case .success = result { appended += job.changeCount }
        }
        counters.withLock { $0.noteTransaction(operations: jobs.count, appendedChanges: appended, nanoseconds: nanoseconds) }
        return results
    }

    /// Counts a transaction of `jobs` that failed whole; returns `error` for each job.
    func failed(_ jobs: [Job], _ error: StoreError) -> [Result<Void, StoreError>] {
        counters.withLock { $0.noteFailedTransaction(operations: jobs.count) }
        return jobs.map { _ in .failure(error) }
    }

    private func run(_ committer: Committer) {
        noteCompletingThread()
        var lastBatch = 0
        while true {
            wake.wait()
            committer.waitForTurn?()
            if lastBatch > 1 { committer.gather?() }
            let (batch, closing) = queue.withLock { $0.takeAll() }
            if !batch.isEmpty {
                lastBatch = batch.count
                for run in Self.runs(of: batch, alone: committer.alone) {
                    let results = committer.commit(run)
                    if let handOff = committer.handOff {
                        handOff(run, results)
                    } else {
                        complete(run, results)
                    }
                }
                if committer.handOff == nil { committer.published?() }
            }
            // Once `closing` is seen no job can be queued any more, so this batch was the last.
            if closing { break }
        }
        committer.stopped?()
        running.leave()
    }

    /// The batch as runs to commit one after the other: each job `alone` says so on its
    /// own, the jobs between such ones together.
    private static func runs(of batch: [Job], alone: (@Sendable (Job) -> Bool)?) -> [[Job]] {
        guard let alone else { return [batch] }
        var runs: [[Job]] = []
        var start = 0
        while start < batch.count {
            var end = start + 1
            if !alone(batch[start]) {
                while end < batch.count && !alone(batch[end]) { end += 1 }
            }
            runs.append(Array(batch[start..<end]))
            start = end
        }
        return runs
    }
}

/// A store writer built on a `WriterThread`: the thread's queue and state are its own.
protocol ThreadedWriter: Sendable {
    associatedtype Job: WriterJob
    var thread: WriterThread<Job> { get }
}

extension ThreadedWriter {
    var statistics: StoreStatistics { thread.statistics }

    var health: StoreHealth { thread.health }

    /// True from the moment `close()` begins: reads and writes then fail with `.closed`.
    var isClosed: Bool { thread.isClosed }

    /// Queues a job; refused with `.closed` after `close()` (see `WriterThread.Refusals`).
    func submit(_ job: Job) {
        thread.submit(job)
    }

    /// Lets the writer finish every queued job, then stops it (see `WriterThread.close()`).
    func close() {
        thread.close()
    }
}

extension StoreStatistics {
    /// A committed write transaction of `operations` jobs.
    mutating func noteTransaction(operations: Int, appendedChanges: Int, nanoseconds: UInt64 = 0) {
        transactions += 1
        self.operations += operations
        self.appendedChanges += appendedChanges
        commitNanoseconds += nanoseconds
    }

    /// A write transaction of `operations` jobs that failed whole.
    mutating func noteFailedTransaction(operations: Int) {
        failedTransactions += 1
        self.operations += operations
    }
}
