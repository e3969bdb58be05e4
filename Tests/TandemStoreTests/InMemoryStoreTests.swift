import Dispatch
import Foundation
import Testing
@testable import TandemStore

/// What only the store in memory does: its stand-in for a failing disk, and how it ends
/// where `SQLiteStore` would complete on the caller's thread or wait for itself.
@Suite struct InMemoryStoreTests {
    /// While writes fail, each batch fails whole and stores nothing, `health` is failing from
    /// the first refusal (its time kept through later ones), and the first write after that
    /// commits makes it ok again, as `SQLiteStore` on a full disk.
    @Test func failedWritesStoreNothingAndHealthFollowsThem() throws {
        let store = InMemoryStore()
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        store.failWrites(with: .full)
        #expect(throws: StoreError.full) { try store.appendAndWait([Fixture.change("d", 1)]) }
        guard case .failing(.full, let since) = store.health else {
            Issue.record("health is \(store.health) after a refused write")
            return
        }
        let refused = StoreTicket()
        store.submit([.setMeta("k", [1]), .append([Fixture.change("d", 1)])]) { refused.finish($0) }
        #expect(throws: StoreError.full) { try refused.wait().get() }
        #expect(store.health == .failing(.full, since: since))
        #expect(store.statistics.failedTransactions == 2)
        #expect(try store.lastRevision(document: "d") == 0)
        #expect(try store.meta("k") == nil)

        store.failWrites(with: nil)
        try store.appendAndWait([Fixture.change("d", 1)])
        #expect(store.health == .ok)
        #expect(store.statistics.appendedChanges == 1)
    }

    /// After `close()` a submit is refused on the store's own queue, in order, after the
    /// completions of what was drained: never on the caller's thread, where it might hold
    /// the lock its completion takes.
    @Test func refusalsAfterCloseCompleteOffTheCallersThreadInOrder() throws {
        let store = InMemoryStore()
        store.close()
        let caller = pthread_self()
        let seen = Locked<(order: [Int], onCaller: Int)>(([], 0))
        let tickets = (0..<20).map { _ in StoreTicket() }
        for (index, ticket) in tickets.enumerated() {
            store.append([Fixture.change("d", index + 1)]) { result in
                seen.withLock {
                    $0.order.append(index)
                    if pthread_equal(caller, pthread_self()) != 0 { $0.onCaller += 1 }
                }
                ticket.finish(result)
            }
        }
        for ticket in tickets { #expect(throws: StoreError.closed) { try ticket.wait().get() } }
        #expect(seen.withLock { $0.order } == Array(0..<20))
        #expect(seen.withLock { $0.onCaller } == 0)
    }

    /// A completion may close the store: the writer finishes what is queued instead of
    /// waiting for itself, and later calls are refused.
    @Test func closingFromACompletionFinishesTheQueue() throws {
        let store = InMemoryStore()
        try store.createDocument(Fixture.document("d"))
        let first = StoreTicket(), second = StoreTicket()
        store.append([Fixture.change("d", 1)]) { result in
            store.close()
            first.finish(result)
        }
        store.append([Fixture.change("d", 2)]) { second.finish($0) }
        try first.wait().get()
        let late = StoreTicket()
        store.submit([.setMeta("k", [1])]) { late.finish($0) }
        #expect(throws: StoreError.closed) { try late.wait().get() }
        // The second append was queued before the close: it was applied, or refused whole.
        if case .failure(let error) = second.wait() { #expect(error == .closed) }
        store.close()
        #expect(throws: StoreError.closed) { try store.lastRevision(document: "d") }
    }
}
