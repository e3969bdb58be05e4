import Testing
import TandemStore

/// Start-up reads the newest snapshot and the changes after it, not the whole history.
@Suite struct LoadTests {
    let directory = TemporaryDirectory()

    @Test(arguments: StoreKind.allCases)
    func loadAllReturnsSnapshotAndTail(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("long"))
        try store.createDocument(Fixture.document("fresh"))
        try store.createDocument(Fixture.document("empty"))
        try store.appendAndWait(Fixture.changes("long", 1...100))
        try store.appendAndWait(Fixture.changes("fresh", 1...3))
        try store.writeSnapshot(StoredSnapshot(documentID: "long", revision: 60, payload: [60]))
        try store.writeSnapshot(StoredSnapshot(documentID: "long", revision: 90, payload: [90]))
        // An older snapshot never replaces a newer one.
        try store.writeSnapshot(StoredSnapshot(documentID: "long", revision: 50, payload: [50]))

        let documents = Dictionary(uniqueKeysWithValues: try store.loadAll().documents.map { ($0.document.id, $0) })
        #expect(documents["long"]?.snapshot == StoredSnapshot(documentID: "long", revision: 90, payload: [90]))
        #expect(documents["long"]?.tail == Fixture.changes("long", 91...100))
        #expect(documents["long"]?.revision == 100)
        #expect(documents["fresh"]?.snapshot == nil)
        #expect(documents["fresh"]?.tail == Fixture.changes("fresh", 1...3))
        #expect(documents["empty"]?.tail == [])
        #expect(documents["empty"]?.revision == 0)

        // The history before the snapshot is still there until trimmed.
        #expect(try store.changes(document: "long", after: 0).count == 100)
        try store.trimChanges(document: "long", through: 90)
        #expect(try store.changes(document: "long", after: 0) == Fixture.changes("long", 91...100))
        #expect(try store.loadAll().documents.first { $0.document.id == "long" }?.tail == Fixture.changes("long", 91...100))
        // Trimming does not rewind the revision.
        try store.appendAndWait([Fixture.change("long", 101)])
    }

    @Test(arguments: StoreKind.allCases)
    func snapshotBeyondTheLogIsRejected(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...2))
        #expect(throws: StoreError.conflict("snapshot at 3 but d is at revision 2")) { try store.writeSnapshot(StoredSnapshot(documentID: "d", revision: 3, payload: [])) }
        #expect(throws: StoreError.notFound("no document x")) { try store.writeSnapshot(StoredSnapshot(documentID: "x", revision: 0, payload: [])) }
        #expect(try store.snapshot(document: "d") == nil)
    }
}
