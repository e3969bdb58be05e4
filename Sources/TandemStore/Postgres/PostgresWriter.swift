import Dispatch
import Foundation

/// The single writer behind `PostgresStore`, on a `WriterThread` as `GroupCommitWriter` is:
/// every write is a job in one queue; the writer thread, holding its own connection, takes all
/// queued jobs, runs them in ONE transaction, commits once, then completes them in order. A sequenced unit is a transaction of its own, in its place in the
/// order (`WriterThread.Committer.alone`): the jobs before it are committed and completed
/// first. Consecutive append-only jobs are stored as one append (one revision update
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
final class PostgresWriter: ThreadedWriter {
    typealias Work = @Sendable (PGConnection) throws(StoreError) -> Void

    struct Job: WriterJob {
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

    /// Owned by the writer thread (and by `init` before the thread starts).
    private let connection: PGConnection
    /// The queue, the writer thread, `submit` and `close` (see there).
    let thread = WriterThread<Job>()
    /// The writer's backend process, for tests that cut its connection.
    let backendPID = Locked<Int32>(0)
    /// For tests: where the writer reconnects to instead of the store's conninfo.
    let reconnectTarget = Locked<String?>(nil)

    /// This node's name in the cluster feed, and the channel its commits notify on.
    let node: String
    let channel: String
    /// How far this node's own feed entries are published (after the batch's completions).
    let published: PublishedFeed
    /// The newest feed seq this writer committed (writer thread only).
    private let committedSeq = Locked(0)
    /// The leases this node holds, checked by every batch once enabled (`PostgresLeases`).
    let fence = LeaseFence()

    init(connection: PGConnection, node: String, channel: String, published: PublishedFeed) {
        self.connection = connection
        self.node = node
        self.channel = channel
        self.published = published
        backendPID.withLock { $0 = connection.backendPID }
        thread.start("TandemStore postgres writer", .init(
            // A sequenced unit is a transaction of its own, in its place in the order.
            commit: { [self] run in run[0].isSequenced ? [commitSequenced(run[0])] : commit(run) },
            gather: { _ = usleep(Self.gatherMicroseconds) },
            alone: { $0.isSequenced },
            published: { [committedSeq, published] in published.advance(to: committedSeq.withLock { $0 }) },
            stopped: { [connection] in connection.close() }))
    }

    /// Queues `work` and blocks until it committed or failed.
    func perform(changeCount: Int = 0, touching touched: [StoreWrite] = [], _ work: @escaping Work) throws(StoreError) {
        try thread.perform { Job(changeCount: changeCount, work: .closure(work, touched: touched), completion: $0) }
    }

    /// A batch of several jobs waits this long for more to join it (see GroupCommitWriter).
    static let gatherMicroseconds: UInt32 = 200

    /// Runs the batch as one transaction and returns each job's result.
    private func commit(_ batch: [Job]) -> [Result<Void, StoreError>] {
        let started = DispatchTime.now().uptimeNanoseconds
        var results: [Result<Void, StoreError>] = []
        // A deadlock with another node's transaction is broken by PostgreSQL rolling one of
        // them back; nothing of this batch was stored then, so it runs again.
        for attempt in 1...3 {
            do {
                try begin()
                try lockHeads(of: batch)
                var refused = try fence.refusals(batch, node: node, in: connection)
                if let together = try commitTogether(allowed(batch, refused)) {
                    results = merged(together, refused, count: batch.count)
                } else {
                    try begin()
                    try lockHeads(of: batch)
                    refused = try fence.refusals(batch, node: node, in: connection)
                    results = merged(try commitEachInSavepoint(allowed(batch, refused)), refused, count: batch.count)
                }
                break
            } catch {
                if connection.inTransaction { try? connection.execute("ROLLBACK") }
                if error.isDeadlock && attempt < 3 { continue }
                return thread.failed(batch, error)
            }
        }
        return thread.committed(batch, results, nanoseconds: DispatchTime.now().uptimeNanoseconds - started)
    }

    /// The jobs not refused by the fence, in order.
    private func allowed(_ batch: [Job], _ refused: [Int: StoreError]) -> [Job] {
        refused.isEmpty ? batch : batch.indices.filter { refused[$0] == nil }.map { batch[$0] }
    }

    /// The results of the allowed jobs, with the refused ones' failures in their places.
    private func merged(_ ran: [Result<Void, StoreError>], _ refused: [Int: StoreError], count: Int) -> [Result<Void, StoreError>] {
        guard !refused.isEmpty else { return ran }
        var next = ran.makeIterator()
        return (0..<count).map { i in refused[i].map { .failure($0) } ?? next.next()! }
    }

    /// Locks the head rows of the documents the batch writes, in id order, before anything
    /// else: the order sequenced units take them in, so a batch and another node's unit wait
    /// for each other instead of deadlocking. Every write naming a document counts, those the
    /// feed does not announce too: inserting a snapshot or an archived run takes a key-share
    /// lock on its document's row, and taken after a pasteboard's row it could close a cycle
    /// with a unit holding the head and cutting onto that pasteboard.
    private func lockHeads(of batch: [Job]) throws(StoreError) {
        var ids = Set<String>()
        for job in batch {
            for write in job.writes { write.addDocuments(to: &ids) }
        }
        guard !ids.isEmpty else { return }
        try connection.query("SELECT id FROM documents WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
                             [.text(PostgresStore.arrayLiteral(ids.sorted()))])
    }

    /// A sequenced unit in a transaction of its own; on any failure nothing of it is stored.
    private func commitSequenced(_ job: Job) -> Result<Void, StoreError> {
        guard case .sequenced(let body) = job.work else { return .failure(.io("not a sequenced job")) }
        let started = DispatchTime.now().uptimeNanoseconds
        do {
            try begin()
            let (appended, seq) = try PostgresStore.runSequenced(body, node: node, channel: channel, in: connection)
            try connection.execute("COMMIT")
            noteCommitted(seq)
            let took = DispatchTime.now().uptimeNanoseconds - started
            thread.counters.withLock { $0.noteTransaction(operations: 1, appendedChanges: appended, nanoseconds: took) }
            return .success(())
        } catch {
            if connection.inTransaction { try? connection.execute("ROLLBACK") }
            return thread.failed([job], error)[0]
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
        let seq: Int?
        do {
            try MergedAppends.run(batch, writes: \.work.dataWrites,
                                  insert: { (changes) throws(StoreError) in try PostgresStore.insert(changes, in: connection) },
                                  run: { (job) throws(StoreError) in try job.work.run(in: connection) })
            seq = try PostgresStore.logCluster(ClusterEntry.touched(by: batch.flatMap(\.writes), documentsFollowed: !fence.isEnabled), node: node, channel: channel, in: connection)
        } catch where error.isConflict {
            try connection.execute("ROLLBACK")
            return nil
        }
        try connection.execute("COMMIT")
        noteCommitted(seq)
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
        let seq = try PostgresStore.logCluster(ClusterEntry.touched(by: stored, documentsFollowed: !fence.isEnabled), node: node, channel: channel, in: connection)
        try connection.execute("COMMIT")
        noteCommitted(seq)
        return results
    }

    private func noteCommitted(_ seq: Int?) {
        if let seq { committedSeq.withLock { $0 = max($0, seq) } }
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
    /// The writes, when kept as data.
    var dataWrites: [StoreWrite]? {
        if case .writes(let writes) = self { writes } else { nil }
    }

    func run(in connection: PGConnection) throws(StoreError) {
        switch self {
        case .writes(let writes): for write in writes { try PostgresStore.run(write, in: connection) }
        case .closure(let work, _): try work(connection)
        case .sequenced: throw .io("a sequenced unit runs in a transaction of its own")
        }
    }
}

extension StoreWrite {
    /// Adds the ids of the documents whose rows the write changes or refers to.
    func addDocuments(to ids: inout Set<String>) {
        switch self {
        case .append(let changes): for c in changes { ids.insert(c.documentID) }
        case .createDocument(let d, _), .updateDocument(let d): ids.insert(d.id)
        case .deleteDocument(let id): ids.insert(id)
        case .addVersion(let v): ids.insert(v.documentID)
        case .removeCheckpoint(let id, _), .removeVersion(let id, _), .nameVersion(let id, _, _): ids.insert(id)
        case .writeSnapshot(let s): ids.insert(s.documentID)
        case .trimChanges(let id, _), .trimArchive(let id, _): ids.insert(id)
        case .archive(let run): ids.insert(run.documentID)
        case .setMeta(let key, _) where key.hasPrefix(ClusterEntry.journalPrefix):
            ids.insert(String(key.dropFirst(ClusterEntry.journalPrefix.count)))
        case .setMeta(let key, _) where key.hasPrefix(ClusterEntry.selectionPrefix):
            let rest = key.dropFirst(ClusterEntry.selectionPrefix.count)
            ids.insert(String(rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]))
        case .recordOpened(_, let recent): ids.insert(recent.documentID)
        case .setMeta, .forgetOpened, .upsertPasteboard, .deletePasteboard, .upsertSession, .deleteSession, .upsertUser, .deleteUser: break
        }
    }
}
