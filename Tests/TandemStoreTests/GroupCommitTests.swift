import Dispatch
import Testing
@testable import TandemStore

@Suite struct GroupCommitTests {
    let directory = TemporaryDirectory()

    /// 50 threads each append 200 changes one by one, waiting for each like a server request
    /// would. All land in order, and they share transactions: far fewer commits than appends.
    @Test func fiftyWritersShareCommits() throws {
        let store = try SQLiteStore(directory: directory.path, durability: .full)
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
        #expect(transactions * 4 <= appends, "\(transactions) transactions for \(appends) appends")
        let contents = try store.loadAll()
        #expect(contents.documents.count == writers)
        for loaded in contents.documents {
            #expect(loaded.revision == perWriter)
            #expect(loaded.tail == Fixture.changes(loaded.document.id, 1...perWriter))
        }
        print("group commit: \(appends) appends in \(transactions) transactions")
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
    @Test func asynchronousAppendsAllComplete() throws {
        let store = try SQLiteStore(directory: directory.path, durability: .normal)
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
}
