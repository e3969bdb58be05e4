import Dispatch
import Foundation

/// The writer thread behind `InMemoryStore`, in the manner of `GroupCommitWriter`: every write
/// is a job in one queue; the thread takes all queued jobs as a batch, applies them one unit
/// after another under the state's lock (readers see the batch whole or not at all), then
/// calls their completions in order with no lock held, then the batch handler.
///
/// What is not kept from `GroupCommitWriter`: there is no disk, so no syncer, no flush, no
/// gathering wait, and a batch fails as a whole only by `failWrites` (a stand-in for a
/// full disk). And a job refused because the store is closed is completed with `.closed` on
/// a queue of the writer's own, after every completion of the jobs drained by `close()`,
/// never on the thread that submitted it (`GroupCommitWriter` calls it right there).
final class MemoryWriter: Sendable {
    typealias Work = @Sendable (inout MemoryState) throws(StoreError) -> Void

    struct Job: Sendable {
        /// Changes this job appends, for the statistics.
        var changeCount: Int
        var work: Work
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    /// Boxed, as `GroupCommitWriter` boxes it: a closure kept directly as a lock's value is
    /// re-wrapped in reabstraction thunks by every `withLock`.
    private final class BatchHandler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// The stored state: the writer mutates it, readers read it, both under its lock.
    let state = Locked(MemoryState())
    private let queue = Locked(WriterQueue<Job>())
    private let counters = Locked(StoreStatistics())
    private let healthState = Locked(StoreHealth.ok)
    private let failure = Locked<StoreError?>(nil)
    private let batchCompleted = Locked<BatchHandler?>(nil)
    private let wake = DispatchSemaphore(value: 0)
    /// Entered until the thread has completed its last batch and stopped.
    private let running = DispatchGroup()
    private let thread = Locked<pthread_t?>(nil)
    /// Completes refused jobs in order, once the thread has stopped.
    private let refusals = DispatchQueue(label: "TandemStore memory refusals")

    init() {
        running.enter()
        let thread = Thread { [self] in run() }
        thread.name = "TandemStore memory writer"
        thread.start()
    }

    var statistics: StoreStatistics { counters.withLock { $0 } }

    var health: StoreHealth { healthState.withLock { $0 } }

    /// True from the moment `close()` begins: reads and writes then fail with `.closed`.
    var isClosed: Bool { queue.withLock { $0.closing } }

    func onBatchCompleted(_ handler: @escaping @Sendable () -> Void) {
        batchCompleted.withLock { $0 = BatchHandler(handler) }
    }

    /// While set, every batch fails whole with this error and stores nothing.
    func failWrites(with error: StoreError?) {
        failure.withLock { $0 = error }
    }

    /// Queues a job; never blocks beyond a short lock, never completes on this thread.
    func submit(_ job: Job) {
        if queue.withLock({ $0.add(job) }) {
            wake.signal()
        } else {
            refusals.async { [running] in
                running.wait()
                job.completion(.failure(.closed))
            }
        }
    }

    /// Queues `work` and blocks until it is applied or refused.
    func perform(changeCount: Int = 0, _ work: @escaping Work) throws(StoreError) {
        if onWriterThread {
            throw .io("a blocking store call from an append completion would deadlock the writer")
        }
        // Refused at once: a refusal's completion is queued behind the others, and this may
        // be one of them.
        if isClosed { throw .closed }
        let ticket = StoreTicket()
        submit(Job(changeCount: changeCount, work: work) { ticket.finish($0) })
        try ticket.wait().get()
    }

    /// Lets the thread finish every queued job, then stops it; returns once it has, except
    /// on the writer thread itself (from a completion), where it cannot wait for itself.
    func close() {
        _ = queue.withLock { $0.close() }
        wake.signal()
        if !onWriterThread { running.wait() }
    }

    private var onWriterThread: Bool {
        guard let writer = thread.withLock({ $0 }) else { return false }
        return pthread_equal(writer, pthread_self()) != 0
    }

    private func run() {
        thread.withLock { $0 = pthread_self() }
        while true {
            wake.wait()
            let (batch, closing) = queue.withLock { $0.takeAll() }
            if !batch.isEmpty {
                let results = apply(batch)
                healthState.withLock { $0.note(results) }
                for (job, result) in zip(batch, results) { job.completion(result) }
                batchCompleted.withLock { $0 }?.run()
            }
            // Once `closing` is seen no job can be queued any more, so this batch was the last.
            if closing { break }
        }
        running.leave()
    }

    /// Each job as one unit, the batch under one hold of the lock; a conflict fails its job
    /// alone. Returns each job's result.
    private func apply(_ batch: [Job]) -> [Result<Void, StoreError>] {
        let started = DispatchTime.now().uptimeNanoseconds
        if let error = failure.withLock({ $0 }) {
            counters.withLock {
                $0.failedTransactions += 1
                $0.operations += batch.count
            }
            return batch.map { _ in .failure(error) }
        }
        let results = state.withLock { state in batch.map { job in state.unit(job.work) } }
        let took = DispatchTime.now().uptimeNanoseconds - started
        counters.withLock { counters in
            counters.transactions += 1
            counters.operations += batch.count
            counters.commitNanoseconds += took
            for (job, result) in zip(batch, results) where job.changeCount > 0 {
                if case .success = result { counters.appendedChanges += job.changeCount }
            }
        }
        return results
    }
}
