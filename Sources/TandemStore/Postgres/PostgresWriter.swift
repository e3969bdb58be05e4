import Dispatch
import Foundation

/// The single writer behind `PostgresStore`, in the manner of `GroupCommitWriter`: every write
/// is a job in one queue; the writer thread, holding its own connection, takes all queued jobs,
/// runs them in ONE transaction, commits once, then completes them in order and runs the
/// batch handler. Consecutive append-only jobs are stored as one append (one revision update
/// and one run per document). A batch in which a job conflicts is rolled back and run again
/// with a savepoint per job, so that only the conflicting job is undone.
///
/// Durability is PostgreSQL's: COMMIT returns once the server has flushed its WAL (with the
/// server's default `synchronous_commit`), so there is no syncer; the writer gathers for a
/// moment after a batch of several jobs, as `GroupCommitWriter` does.
///
/// A failure that is not a conflict (the connection lost, the server's disk full) fails every
/// job of the batch and makes `health` failing. The connection is re-established before the
/// next batch; if BEGIN itself fails on a broken connection, nothing of the batch was sent,
/// so the writer reconnects and tries once more before failing the batch.
final class PostgresWriter: Sendable {
    typealias Work = @Sendable (PGConnection) throws(StoreError) -> Void

    struct Job: Sendable {
        enum Work: Sendable {
            /// Kept as data so that the appends of consecutive jobs can be merged.
            case writes([StoreWrite])
            /// `touched`: what it writes, for the cluster feed (only the kinds the feed names matter).
            case closure(PostgresWriter.Work, touched: [StoreWrite])
            /// A unit of its own transaction under row locks (`PostgresStore.sequence`).
            case sequenced(PostgresStore.SequencedBody)
        }

        var changeCount: Int
        var work: Work
        var completion: @Sendable (Result<Void, StoreError>) -> Void
    }

    private final class BatchHandler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Owned by the writer thread (and by `init` before the thread starts).
    private let connection: PGConnection
    private let queue = Locked(WriterQueue<Job>())
    private let counters = Locked(StoreStatistics())
    private let healthState = Locked(StoreHealth.ok)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let thread = Locked<pthread_t?>(nil)
    private let batchCompleted = Locked<BatchHandler?>(nil)
    /// The writer's backend process, for tests that cut its connection.
    let backendPID = Locked<Int32>(0)
    /// For tests: where the writer reconnects to instead of the store's conninfo.
    let reconnectTarget = Locked<String?>(nil)

    /// This node's name in the cluster feed, and the channel its commits notify on.
    let node: String
    let channel: String

    init(connection: PGConnection, node: String, channel: String) {
        self.connection = connection
        self.node = node
        self.channel = channel
        backendPID.withLock { $0 = connection.backendPID }
        let thread = Thread { [self] in run() }
        thread.name = "TandemStore postgres writer"
        thread.start()
    }

    var statistics: StoreStatistics { counters.withLock { $0 } }

    var health: StoreHealth { healthState.withLock { $0 } }

    var isClosed: Bool { queue.withLock { $0.closing } }

    func onBatchCompleted(_ handler: @escaping @Sendable () -> Void) {
        batchCompleted.withLock { $0 = BatchHandler(handler) }
    }

    /// Queues a job; fails it at once with `.closed` after `close()`.
    func submit(_ job: Job) {
        if queue.withLock({ $0.add(job) }) {
            wake.signal()
        } else {
            job.completion(.failure(.closed))
        }
    }

    /// Queues `work` and blocks until it committed or failed.
    func perform(changeCount: Int = 0, touching touched: [StoreWrite] = [], _ work: @escaping Work) throws(StoreError) {
        if let writer = thread.withLock({ $0 }), pthread_equal(writer, pthread_self()) != 0 {
            throw .io("a blocking store call from an append completion would deadlock the writer")
        }
        let ticket = StoreTicket()
        submit(Job(changeCount: changeCount, work: .closure(work, touched: touched)) { ticket.finish($0) })
        try ticket.wait().get()
    }

    /// Lets the writer finish every queued job, then closes its connection. Idempotent.
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
            if lastBatch > 1 { usleep(Self.gatherMicroseconds) }
            let (batch, closing) = queue.withLock { $0.takeAll() }
            if !batch.isEmpty {
                lastBatch = batch.count
                // A sequenced unit is a transaction of its own, in its place in the order.
                var start = 0
                while start < batch.count {
                    var end = start + 1
                    if !batch[start].isSequenced {
                        while end < batch.count && !batch[end].isSequenced { end += 1 }
                    }
                    let part = Array(batch[start..<end])
                    let results = part[0].isSequenced ? [commitSequenced(part[0])] : commit(part)
                    healthState.withLock { $0.note(results) }
                    for (job, result) in zip(part, results) { job.completion(result) }
                    start = end
                }
                batchCompleted.withLock { $0 }?.run()
            }
            if closing { break }
        }
        connection.close()
        finished.signal()
    }

    /// A batch of several jobs waits this long for more to join it (see GroupCommitWriter).
    static let gatherMicroseconds: UInt32 = 200

    /// Runs the batch as one transaction and returns each job's result.
    private func commit(_ batch: [Job]) -> [Result<Void, StoreError>] {
        let started = DispatchTime.now().uptimeNanoseconds
        let results: [Result<Void, StoreError>]
        do {
            try begin()
            if let together = try commitTogether(batch) {
                results = together
            } else {
                try begin()
                results = try commitEachInSavepoint(batch)
            }
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            counters.withLock {
                $0.failedTransactions += 1
                $0.operations += batch.count
            }
            return batch.map { _ in .failure(error) }
        }
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

    /// A sequenced unit in a transaction of its own; on any failure nothing of it is stored.
    private func commitSequenced(_ job: Job) -> Result<Void, StoreError> {
        guard case .sequenced(let body) = job.work else { return .failure(.io("not a sequenced job")) }
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            try begin()
            let appended = try PostgresStore.runSequenced(body, node: node, channel: channel, in: connection)
            try connection.execute("COMMIT")
            let took = DispatchTime.now().uptimeNanoseconds - started
            counters.withLock {
                $0.transactions += 1
                $0.operations += 1
                $0.commitNanoseconds += took
                $0.appendedChanges += appended
            }
            return .success(())
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            counters.withLock {
                $0.failedTransactions += 1
                $0.operations += 1
            }
            return .failure(error)
        }
    }

    /// BEGIN on a working connection: reconnects first if it broke, and once more if BEGIN
    /// finds it broken (nothing of the batch was sent yet, so that is safe).
    private func begin() throws(StoreError) {
        let target = reconnectTarget.withLock { $0 }
        for attempt in 0..<2 {
            try connection.reconnectIfBroken(conninfo: target)
            backendPID.withLock { $0 = connection.backendPID }
            do {
                try connection.execute("BEGIN")
                return
            } catch {
                if attempt == 1 || !connection.isBroken { throw error }
            }
        }
    }

    /// The batch as one transaction: nil (rolled back, nothing stored) when a job conflicts.
    private func commitTogether(_ batch: [Job]) throws(StoreError) -> [Result<Void, StoreError>]? {
        var appends: [StoredChange] = []
        do {
            for job in batch {
                if case .writes(let writes) = job.work, writes.allSatisfy(\.isAppend) {
                    for case .append(let changes) in writes { appends += changes }
                    continue
                }
                if !appends.isEmpty {
                    try PostgresStore.insert(appends, in: connection)
                    appends.removeAll(keepingCapacity: true)
                }
                try job.work.run(in: connection)
            }
            if !appends.isEmpty { try PostgresStore.insert(appends, in: connection) }
            try PostgresStore.logCluster(ClusterEntry.touched(by: batch.flatMap(\.writes)), node: node, channel: channel, in: connection)
        } catch where error.isConflict {
            try connection.execute("ROLLBACK")
            return nil
        }
        try connection.execute("COMMIT")
        return Array(repeating: .success(()), count: batch.count)
    }

    /// Each job in its own savepoint: a conflicting job is undone alone, the rest commit.
    private func commitEachInSavepoint(_ batch: [Job]) throws(StoreError) -> [Result<Void, StoreError>] {
        var results: [Result<Void, StoreError>] = []
        results.reserveCapacity(batch.count)
        for job in batch {
            try connection.execute("SAVEPOINT job")
            do {
                try job.work.run(in: connection)
                try connection.execute("RELEASE SAVEPOINT job")
                results.append(.success(()))
            } catch where error.isConflict {
                try connection.execute("ROLLBACK TO SAVEPOINT job; RELEASE SAVEPOINT job")
                results.append(.failure(error))
            }
        }
        let stored = zip(batch, results).filter { if case .success = $0.1 { true } else { false } }.flatMap(\.0.writes)
        try PostgresStore.logCluster(ClusterEntry.touched(by: stored), node: node, channel: channel, in: connection)
        try connection.execute("COMMIT")
        return results
    }
}

extension PostgresWriter.Job {
    var isSequenced: Bool {
        if case .sequenced = work { return true }
        return false
    }

    /// The writes it stores, as data (what the cluster feed names); none for closures, whose
    /// callers name theirs (`PostgresStore.write(touching:)`).
    var writes: [StoreWrite] {
        switch work {
        case .writes(let writes): writes
        case .closure(_, let touched): touched
        case .sequenced: []
        }
    }
}

extension PostgresWriter.Job.Work {
    func run(in connection: PGConnection) throws(StoreError) {
        switch self {
        case .writes(let writes): for write in writes { try PostgresStore.run(write, in: connection) }
        case .closure(let work, _): try work(connection)
        case .sequenced: throw .io("a sequenced unit runs in a transaction of its own")
        }
    }
}
