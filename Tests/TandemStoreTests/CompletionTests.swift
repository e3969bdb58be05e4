import Dispatch
import Testing
@testable import TandemStore

@Suite struct CompletionTests {
    let directory = TemporaryDirectory()

    /// Completions run on the writer thread (or its syncer, with durability `full`, the
    /// default here): a blocking write from there must fail, not hang,
    /// while reads and further asynchronous appends work.
    @Test func blockingWriteFromACompletionFailsInsteadOfDeadlocking() throws {
        let store = try SQLiteStore(directory: directory.path)
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
}
