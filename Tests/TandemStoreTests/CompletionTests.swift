import Dispatch
import Foundation
import Testing
@testable import TandemStore

@Suite struct CompletionTests {
    let directory = TemporaryDirectory()

    /// Completions run on the writer thread (or SQLite's syncer, with durability `full`, the
    /// default here): a blocking write from there must fail, not hang,
    /// while reads and further asynchronous appends work.
    @Test(arguments: StoreKind.allCases)
    func blockingWriteFromACompletionFailsInsteadOfDeadlocking(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        let seen = Locked<(nested: Result<Void, StoreError>?, revision: Int?)>((nil, nil))
        let done = DispatchSemaphore(value: 0)
        store.append([Fixture.change("d", 1)]) { _ in
            let nested = Result { () throws(StoreError) in try store.appendAndWait([Fixture.change("d", 2)]) }
            let revision = try? store.lastRevision(document: "d")
            seen.withLock { $0 = (nested, revision) }
            store.append([Fixture.change("d", 2)]) { _ in done.signal() }
        }
        done.wait()
        let (nested, revision) = seen.withLock { $0 }
        guard case .failure(.io) = nested else {
            Issue.record("expected an .io failure, got \(String(describing: nested))")
            return
        }
        #expect(revision == 1)
        #expect(try store.lastRevision(document: "d") == 2)
    }

    /// Callers submit while holding their own locks, and completions take them: a completion
    /// never runs on the submitting thread, and completions come in submission order.
    @Test(arguments: StoreKind.allCases)
    func completionsRunOffTheCallersThreadInSubmissionOrder(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let caller = pthread_self()
        let seen = Locked<(order: [Int], onCaller: Int)>(([], 0))
        let tickets = (0..<100).map { _ in StoreTicket() }
        for (index, ticket) in tickets.enumerated() {
            store.submit([.setMeta("k", [UInt8(index)])]) { result in
                seen.withLock {
                    $0.order.append(index)
                    if pthread_equal(caller, pthread_self()) != 0 { $0.onCaller += 1 }
                }
                ticket.finish(result)
            }
        }
        for ticket in tickets { try ticket.wait().get() }
        #expect(seen.withLock { $0.order } == Array(0..<100))
        #expect(seen.withLock { $0.onCaller } == 0)
    }
}
