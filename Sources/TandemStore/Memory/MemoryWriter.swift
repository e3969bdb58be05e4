import Dispatch
import Foundation

/// The writer behind `InMemoryStore`, on a `WriterThread` as `GroupCommitWriter` is: every
/// write is a job in one queue; the thread takes all queued jobs as a batch, applies them one
/// unit after another under the state's lock (readers see the batch whole or not at all), then
/// calls their completions in order with no lock held.
///
/// What is not kept from `GroupCommitWriter`: there is no disk, so no syncer, no flush, no
/// gathering wait, and a batch fails as a whole only by `failWrites` (a stand-in for a
/// full disk). And a job refused because the store is closed is completed with `.closed` on
/// a queue of the writer's own, after every completion of the jobs drained by `close()`,
/// never on the thread that submitted it (`GroupCommitWriter` calls it right there; see
/// `WriterThread.Refusals`).
final class MemoryWriter: ThreadedWriter {
    typealias Work = @Sendable (inout MemoryState) throws(StoreError) -> Void

    struct Job: WriterJob {
        /// Changes this job appends, for the statistics.
        var changeCount: Int
        var work: Work
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    /// The stored state: the writer mutates it, readers read it, both under its lock.
    let state = Locked(MemoryState())
    /// The queue, the writer thread, `submit` and `close` (see there).
    let thread = WriterThread<Job>(refusals: .queued(label: "TandemStore memory refusals"))
    private let failure = Locked<StoreError?>(nil)

    init() {
        thread.start("TandemStore memory writer", .init(commit: { [self] batch in apply(batch) }))
    }

    /// While set, every batch fails whole with this error and stores nothing.
    func failWrites(with error: StoreError?) {
        failure.withLock { $0 = error }
    }

    /// Queues `work` and blocks until it is applied or refused.
    func perform(changeCount: Int = 0, _ work: @escaping Work) throws(StoreError) {
        try thread.perform { Job(changeCount: changeCount, work: work, completion: $0) }
    }

    /// Each job as one unit, the batch under one hold of the lock; a conflict fails its job
    /// alone. Returns each job's result.
    private func apply(_ batch: [Job]) -> [Result<Void, StoreError>] {
        let started = DispatchTime.now().uptimeNanoseconds
        if let error = failure.withLock({ $0 }) {
            return thread.failed(batch, error)
        }
        let results = state.withLock { state in batch.map { job in state.unit(job.work) } }
        return thread.committed(batch, results, nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
    }
}
