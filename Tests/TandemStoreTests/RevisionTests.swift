import Dispatch
import Testing
@testable import TandemStore

/// Revisions are gap-free and strictly increasing, and a refused append leaves nothing behind.
@Suite struct RevisionTests {
    let directory = TemporaryDirectory()

    func isConflict(_ error: any Error) -> Bool {
        if case .conflict = error as? StoreError { return true }
        return false
    }

    @Test(arguments: StoreKind.allCases)
    func gapIsRejected(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...2))
        #expect(performing: { try store.appendAndWait(Fixture.changes("d", 4...5)) }, throws: isConflict)
        #expect(performing: { try store.appendAndWait([Fixture.change("d", 0)]) }, throws: isConflict)
        #expect(try store.lastRevision(document: "d") == 2)
        #expect(try store.changes(document: "d", after: 0) == Fixture.changes("d", 1...2))
    }

    @Test(arguments: StoreKind.allCases)
    func duplicateIsRejectedAndKeepsTheStoredPayload(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...3))
        let impostor = StoredChange(documentID: "d", revision: 3, payload: [0xFF])
        #expect(performing: { try store.appendAndWait([impostor]) }, throws: isConflict)
        // Non-consecutive inside one append: 4 is fine, the second 4 is not; neither is stored.
        #expect(performing: { try store.appendAndWait([Fixture.change("d", 4), Fixture.change("d", 4)]) }, throws: isConflict)
        #expect(try store.changes(document: "d", after: 0) == Fixture.changes("d", 1...3))
        #expect(try store.lastRevision(document: "d") == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func appendIsAllOrNothingAcrossDocuments(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("a"))
        try store.createDocument(Fixture.document("b"))
        // a's part is valid and is written first; b's gap must undo it.
        #expect(performing: { try store.appendAndWait(Fixture.changes("a", 1...3) + Fixture.changes("b", 2...2)) }, throws: isConflict)
        #expect(try store.changes(document: "a", after: 0).isEmpty)
        #expect(try store.lastRevision(document: "a") == 0)
        #expect(throws: StoreError.notFound("no document ghost")) { try store.appendAndWait([Fixture.change("ghost", 1)]) }
        try store.appendAndWait(Fixture.changes("a", 1...3) + Fixture.changes("b", 1...1))
        #expect(try store.lastRevision(document: "a") == 3)
        #expect(try store.lastRevision(document: "b") == 1)
    }

    /// A conflicting append queued among good ones fails alone: its savepoint is rolled back,
    /// the others in the same batch commit.
    @Test(arguments: StoreKind.allCases)
    func conflictInABatchFailsOnlyItsOwnAppend(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        for id in ["a", "b"] { try store.createDocument(Fixture.document(id)) }
        let results = Locked<[Int: Result<Void, StoreError>]>([:])
        let done = DispatchGroup()
        let batch: [[StoredChange]] = [
            Fixture.changes("a", 1...2), Fixture.changes("b", 5...5), Fixture.changes("a", 3...3),
            Fixture.changes("a", 3...3), Fixture.changes("b", 1...1),
        ]
        for (index, changes) in batch.enumerated() {
            done.enter()
            store.append(changes) { result in
                results.withLock { $0[index] = result }
                done.leave()
            }
        }
        done.wait()
        let outcome = results.withLock { $0 }
        #expect((try? outcome[0]?.get()) != nil)
        #expect((try? outcome[2]?.get()) != nil)
        #expect((try? outcome[4]?.get()) != nil)
        for failing in [1, 3] {
            guard case .failure(.conflict) = outcome[failing] else {
                Issue.record("append \(failing) should conflict, got \(String(describing: outcome[failing]))")
                continue
            }
        }
        #expect(try store.changes(document: "a", after: 0) == Fixture.changes("a", 1...3))
        #expect(try store.changes(document: "b", after: 0) == Fixture.changes("b", 1...1))
        #expect(store.statistics.appendedChanges == 4)
    }

    /// One append of several documents' changes (a unit of spread edits) moves each one; if
    /// any of them is not next, nothing of it is stored.
    @Test(arguments: StoreKind.allCases)
    func anAppendOfSeveralDocumentsIsStoredWholeOrNotAtAll(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        for id in ["a", "b", "c"] { try store.createDocument(Fixture.document(id)) }
        try store.appendAndWait([Fixture.change("a", 1), Fixture.change("b", 1), Fixture.change("a", 2), Fixture.change("c", 1)])
        #expect(throws: StoreError.notNext("c", stored: 1, first: 3)) {
            try store.appendAndWait([Fixture.change("a", 3), Fixture.change("b", 2), Fixture.change("c", 3)])
        }
        for (id, revisions) in [("a", [1, 2]), ("b", [1]), ("c", [1])] {
            #expect(try store.changes(document: id, after: 0, through: nil).map(\.revision) == revisions)
        }
        try store.appendAndWait([Fixture.change("a", 3), Fixture.change("b", 2), Fixture.change("c", 2)])
        #expect(try store.changes(document: "c", after: 0, through: nil).map(\.revision) == [1, 2])
    }

    /// Revisions at the ends of `Int` are refused, never trapped on, and reads take any bounds.
    @Test(arguments: StoreKind.allCases)
    func extremeRevisionsAreRefusedAndExtremeBoundsRead(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        #expect(throws: StoreError.conflict("revisions of d are not consecutive at \(Int.min)")) {
            try store.appendAndWait([Fixture.change("d", Int.max), Fixture.change("d", Int.min)])
        }
        #expect(throws: StoreError.notNext("d", stored: 0, first: Int.max)) { try store.appendAndWait([Fixture.change("d", Int.max)]) }
        try store.appendAndWait(Fixture.changes("d", 1...3))
        #expect(try store.changes(document: "d", after: Int.min, through: Int.max) == Fixture.changes("d", 1...3))
        #expect(try store.changes(document: "d", after: -5, through: 2) == Fixture.changes("d", 1...2))
        #expect(try store.changes(document: "d", after: 3, through: 2).isEmpty)
        #expect(try store.changes(document: "d", after: Int.max - 1).isEmpty)
        try store.trimChanges(document: "d", through: Int.max)
        #expect(try store.changes(document: "d", after: Int.min).isEmpty)
        #expect(try store.lastRevision(document: "d") == 3)
    }
}
