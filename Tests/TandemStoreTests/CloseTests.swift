import Dispatch
import Testing
@testable import TandemStore

@Suite struct CloseTests {
    let directory = TemporaryDirectory()

    /// Appends queued before `close()` are committed, then the store refuses work.
    @Test func closeDrainsTheQueueThenRefuses() throws {
        let store = try SQLiteStore(directory: directory.path)
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

        let refused = Locked<Result<Void, StoreError>?>(nil)
        store.append([Fixture.change("d", 301)]) { result in refused.withLock { $0 = result } }
        guard case .failure(.closed) = refused.withLock({ $0 }) else {
            Issue.record("append after close should fail with .closed")
            return
        }
        #expect(throws: StoreError.closed) { try store.appendAndWait([Fixture.change("d", 301)]) }
        #expect(throws: StoreError.closed) { try store.sessions() }
        store.close()

        let reopened = try SQLiteStore(directory: directory.path)
        defer { reopened.close() }
        #expect(try reopened.lastRevision(document: "d") == 300)
    }
}
