import Foundation
import Synchronization
import Testing
@testable import TandemStore

/// Two nodes' transactions on one PostgreSQL take row locks in one order (documents' heads
/// by id, then the rest), so that PostgreSQL never has to break a cycle: a sequenced unit it
/// rolled back would refuse every change in it with `storage_failing`.
@Suite(.enabled(if: !StoreKind.postgresCases.isEmpty))
struct PostgresLockOrderTests {
    let directory = TemporaryDirectory()

    /// Node two's batch writes a pasteboard, then a document's snapshot (an insert that
    /// key-share locks the document's row), while node one's unit holds that document's head
    /// and cuts onto the same pasteboard. The unit waits first, so PostgreSQL would make it
    /// the victim of the cycle; the batch locks the head before the pasteboard, and there is
    /// no cycle: both commit.
    @Test func aBatchTakesTheHeadOfEveryDocumentItWritesBeforeOtherRows() throws {
        let one = try PostgresTestDatabase.store(for: directory)
        defer { one.close() }
        let two = try PostgresStore(url: try #require(PostgresTestDatabase.url), schema: directory.schemaName)
        defer { two.close() }
        try one.createDocument(StoredDocument(id: "d", title: "", created: 0, modified: 0), snapshot: nil)
        let pasteboard = StoredPasteboard(name: "general", owner: nil, persistent: true, changeCount: 1, payload: [1])
        let snapshot = StoredSnapshot(documentID: "d", revision: 0, payload: [2])

        let headHeld = DispatchSemaphore(value: 0)
        let batchSent = DispatchSemaphore(value: 0)
        let unitDone = DispatchSemaphore(value: 0)
        let unitResult = Mutex<Result<Void, StoreError>?>(nil)
        one.sequence({ tx throws(StoreError) in
            _ = try tx.lockHeads(["d"], journalPrefix: ClusterEntry.journalPrefix)
            headHeld.signal()
            batchSent.wait()
            Thread.sleep(forTimeInterval: 0.3)  // the batch, unordered, holds the pasteboard's row by now
            return [.upsertPasteboard(pasteboard)]
        }, completion: { result in
            unitResult.withLock { $0 = result }
            unitDone.signal()
        })
        headHeld.wait()
        batchSent.signal()
        let batch: Result<Void, StoreError>
        do throws(StoreError) {
            try two.write(touching: [.upsertPasteboard(pasteboard), .writeSnapshot(snapshot)]) { c throws(StoreError) in
                try PostgresStore.upsertPasteboard(pasteboard, in: c)
                Thread.sleep(forTimeInterval: 0.5)  // waits for the head after the unit waits for the pasteboard
                try PostgresStore.writeSnapshot(snapshot, in: c)
            }
            batch = .success(())
        } catch {
            batch = .failure(error)
        }
        unitDone.wait()
        #expect(throws: Never.self) { try unitResult.withLock { $0 }?.get() }
        #expect(throws: Never.self) { try batch.get() }
        #expect(try one.snapshot(document: "d")?.payload == [2])
    }
}
