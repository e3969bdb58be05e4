import Dispatch
import Foundation
import Testing
@testable import TandemStore

@Suite struct GroupCommitTests {
    let directory = TemporaryDirectory()

    /// 50 threads each append 200 changes one by one, waiting for each like a server request
    /// would. All land in order, and they share transactions: far fewer commits than appends.
    /// (Only SQLite batches by waiting for the writers; the store in memory shares batches as
    /// they happen to come, so only its counts are checked.)
    @Test(arguments: StoreKind.allCases)
    func fiftyWritersShareCommits(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let writers = 50, perWriter = 200
        for writer in 0..<writers { try store.createDocument(Fixture.document("doc-\(writer)")) }
        let baseline = store.statistics
        let failures = Locked<[String]>([])
        onThreads(writers) { writer in
            for revision in 1...perWriter {
                do {
                    try store.appendAndWait([Fixture.change("doc-\(writer)", revision)])
                } catch {
                    failures.withLock { $0.append("doc-\(writer)@\(revision): \(error)") }
                    return
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let statistics = store.statistics
        let appends = writers * perWriter
        let transactions = statistics.transactions - baseline.transactions
        #expect(statistics.appendedChanges - baseline.appendedChanges == appends)
        #expect(statistics.operations - baseline.operations == appends)
        #expect(statistics.failedTransactions == 0)
        // One commit per append would be `appends`; batching must cut that by a wide margin.
        if kind != .memory {
            #expect(transactions * 4 <= appends, "\(transactions) transactions for \(appends) appends")
        }
        let contents = try store.loadAll()
        #expect(contents.documents.count == writers)
        for loaded in contents.documents {
            #expect(loaded.revision == perWriter)
            #expect(loaded.tail == Fixture.changes(loaded.document.id, 1...perWriter))
        }
        print("group commit (\(kind.testDescription)): \(appends) appends in \(transactions) transactions")
    }

    /// The averages the writer times its batches by (flush and commit durations): the first
    /// sample is taken whole, later ones weigh an eighth, so one stalled flush moves the
    /// average only an eighth of the way towards it.
    @Test(arguments: [
        ([1_000_000], 1_000_000),
        ([1_000_000, 9_000_000], 2_000_000),
        ([1_000_000, 0], 875_000),
        ([800, 800, 800], 800),
        ([UInt64](), 0),
    ] as [([UInt64], UInt64)])
    func movingAverage(samples: [UInt64], expected: UInt64) {
        var average = MovingAverage()
        for sample in samples { average.add(sample) }
        #expect(average.value == expected)
    }

    /// Fire-and-forget appends from many threads: completions all arrive, each once.
    @Test(arguments: [StoreKind.sqlite(.normal), .sqlite(.full), .memory] + StoreKind.postgresCases)
    func asynchronousAppendsAllComplete(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let writers = 20, perWriter = 100
        for writer in 0..<writers { try store.createDocument(Fixture.document("d\(writer)")) }
        let completed = Locked(0)
        let failed = Locked(0)
        let done = DispatchGroup()
        onThreads(writers) { writer in
            for revision in 1...perWriter {
                done.enter()
                store.append([Fixture.change("d\(writer)", revision)]) { result in
                    if case .failure = result { failed.withLock { $0 += 1 } }
                    completed.withLock { $0 += 1 }
                    done.leave()
                }
            }
        }
        done.wait()
        #expect(completed.withLock { $0 } == writers * perWriter)
        #expect(failed.withLock { $0 } == 0)
        for writer in 0..<writers {
            #expect(try store.lastRevision(document: "d\(writer)") == perWriter)
        }
    }

    /// With durability `full` the writer commits the next batches while the syncer flushes, and
    /// the syncer completes them: completions still come in commit order, one at a time, and
    /// never ahead of a flush. The store in memory completes in the same order.
    @Test(arguments: StoreKind.allCases)
    func completionsComeInCommitOrderOneAtATime(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        let order = Locked<[Int]>([])
        let running = Locked((now: false, overlaps: 0))
        let count = 3000
        let done = DispatchGroup()
        for revision in 1...count {
            done.enter()
            store.append([Fixture.change("d", revision)]) { result in
                running.withLock { r in
                    if r.now { r.overlaps += 1 }
                    r.now = true
                }
                if case .success = result { order.withLock { $0.append(revision) } }
                if revision % 97 == 0 { usleep(200) }
                running.withLock { $0.now = false }
                done.leave()
            }
            if revision % 50 == 0 { usleep(100) }
        }
        done.wait()
        let completed = order.withLock { $0 }
        #expect(completed.count == count)
        let firstOutOfOrder = completed.indices.first { completed[$0] != $0 + 1 }
        #expect(firstOutOfOrder == nil, "completion \(firstOutOfOrder ?? 0) was revision \(firstOutOfOrder.map { completed[$0] } ?? 0)")
        #expect(running.withLock { $0.overlaps } == 0)
        let transactions = store.statistics.transactions
        #expect(transactions > 1)
        if kind == .sqlite(.full) { #expect(store.statistics.walFlushes >= 1) }
        #expect(try store.lastRevision(document: "d") == count)
    }

    /// The counters follow what was written: every write is an operation, only stored
    /// changes count, and a conflict is no failed transaction nor a failing store.
    @Test(arguments: StoreKind.allCases)
    func statisticsAndHealthFollowTheWrites(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let start = store.statistics
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...3))
        #expect(throws: StoreError.self) { try store.appendAndWait(Fixture.changes("d", 1...2)) }
        try store.perform([.append(Fixture.changes("d", 4...5)), .setMeta("k", [1])])
        let stats = store.statistics
        #expect(stats.operations - start.operations == 4)
        #expect(stats.appendedChanges - start.appendedChanges == 5)
        #expect(stats.transactions - start.transactions == 4)
        #expect(stats.failedTransactions == 0)
        #expect(store.health == .ok)
    }
}
