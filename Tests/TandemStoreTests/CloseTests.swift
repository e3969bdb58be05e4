import Dispatch
import Testing
@testable import TandemStore

@Suite struct CloseTests {
    let directory = TemporaryDirectory()

    /// Appends queued before `close()` are committed, then the store refuses work.
    @Test(arguments: StoreKind.allCases)
    func closeDrainsTheQueueThenRefuses(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        try store.createDocument(Fixture.document("d"))
        let successes = Locked(0)
        let done = DispatchGroup()
        for revision in 1...300 {
            done.enter()
            store.append([Fixture.change("d", revision)]) { result in
                if case .success = result { successes.withLock { $0 += 1 } }
                done.leave()
            }
        }
        store.close()
        done.wait()
        #expect(successes.withLock { $0 } == 300)

        let refused = StoreTicket()
        store.append([Fixture.change("d", 301)]) { refused.finish($0) }
        guard case .failure(.closed) = refused.wait() else {
            Issue.record("append after close should fail with .closed")
            return
        }
        #expect(throws: StoreError.closed) { try store.appendAndWait([Fixture.change("d", 301)]) }
        #expect(throws: StoreError.closed) { try store.sessions() }
        store.close()

        guard let reopened = try kind.reopen(in: directory) else { return }
        defer { reopened.close() }
        #expect(try reopened.lastRevision(document: "d") == 300)
    }
}
