import Testing
@testable import TandemStore

@Suite struct RoundTripTests {
    let directory = TemporaryDirectory()

    /// What clients write (titles, names, a version's text) may hold any character JSON
    /// allows, U+0000 included, which a PostgreSQL TEXT column refuses.
    @Test(arguments: StoreKind.allCases)
    func clientTextWithEveryAwkwardCharacterReadsBackAsWritten(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let awkward = "quote \" backslash \\ nul \u{0} del \u{7F} ls \u{2028} emoji 😀 é\r\n\ttab"
        var document = Fixture.document("awkward")
        document.title = awkward
        try store.createDocument(document)
        #expect(try store.document("awkward")?.title == awkward)
        try store.addVersion(StoredVersion(documentID: "awkward", number: 1, revision: 0, time: 5, text: awkward, name: awkward))
        let version = try store.version(document: "awkward", number: 1)
        #expect(version?.text == awkward && version?.name == awkward)
        // Empty stays empty, and no name stays none.
        try store.addVersion(StoredVersion(documentID: "awkward", number: 2, revision: 0, time: 6, text: "", name: ""))
        try store.addVersion(StoredVersion(documentID: "awkward", number: 3, revision: 0, time: 7, text: "x", name: nil))
        let later = try store.versions(document: "awkward")
        #expect(later.map(\.text) == [awkward, "", "x"] && later.map(\.name) == [awkward, "", nil])
        try store.upsertSession(StoredSession(id: "s_awkward", tokenHash: [1, 2], name: awkward, color: "#000000", created: 1, lastSeen: 2))
        #expect(try store.sessions().first { $0.id == "s_awkward" }?.name == awkward)
    }

    @Test(arguments: StoreKind.allCases)
    func documentsAreCreatedUpdatedAndDeleted(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        var document = Fixture.document("doc-1")
        try store.createDocument(document)
        #expect(try store.document("doc-1") == document)
        #expect(try store.lastRevision(document: "doc-1") == 0)

        document.title = "Renamed ✓"
        document.modified = 1_800_000_000.5
        document.metadata = []
        try store.updateDocument(document)
        #expect(try store.document("doc-1") == document)

        #expect(throws: StoreError.conflict("document doc-1 exists")) { try store.createDocument(document) }
        #expect(throws: StoreError.notFound("no document nope")) { try store.updateDocument(Fixture.document("nope")) }

        try store.appendAndWait(Fixture.changes("doc-1", 1...3))
        try store.writeSnapshot(StoredSnapshot(documentID: "doc-1", revision: 2, payload: [1, 2]))
        try store.addVersion(StoredVersion(documentID: "doc-1", number: 1, revision: 3, time: 5, text: "abc"))
        try store.deleteDocument("doc-1")
        #expect(try store.document("doc-1") == nil)
        #expect(try store.versions(document: "doc-1").isEmpty)
        #expect(try store.snapshot(document: "doc-1") == nil)
        #expect(try store.loadAll().documents.isEmpty)
        #expect(throws: StoreError.notFound("no document doc-1")) { try store.deleteDocument("doc-1") }

        // The id is free again, starting from revision 0 with no leftover changes.
        try store.createDocument(document)
        #expect(try store.changes(document: "doc-1", after: 0).isEmpty)
        try store.appendAndWait([Fixture.change("doc-1", 1)])
    }

    @Test(arguments: StoreKind.allCases)
    func aDocumentMayStartFromASnapshot(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let snapshot = StoredSnapshot(documentID: "d", revision: 0, payload: Array("hello".utf8))
        try store.createDocument(Fixture.document("d"), snapshot: snapshot)
        #expect(try store.snapshot(document: "d") == snapshot)
        #expect(try store.loadAll().documents.first?.snapshot == snapshot)
    }

    @Test(arguments: StoreKind.allCases)
    func changesKeepPayloadBytesExactly(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        let payloads: [[UInt8]] = [[], [0], Array(0...255), Array("[5,\"héllo 🎉\",-3]".utf8)]
        let changes = payloads.enumerated().map { StoredChange(documentID: "d", revision: $0.offset + 1, payload: $0.element) }
        try store.appendAndWait(changes)
        #expect(try store.changes(document: "d", after: 0) == changes)
        #expect(try store.changes(document: "d", after: 1, through: 3) == Array(changes[1...2]))
        #expect(try store.lastRevision(document: "d") == 4)
        #expect(throws: StoreError.notFound("no document zz")) { try store.changes(document: "zz", after: 0) }
    }

    @Test(arguments: StoreKind.allCases)
    func versionsAreListedByNumberAndUnique(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        let first = StoredVersion(documentID: "d", number: 1, revision: 0, time: 10.5, text: "", name: nil)
        let second = StoredVersion(documentID: "d", number: 2, revision: 7, time: 11, text: "naïve 🎉\ntext", name: "Draft")
        try store.addVersion(second)
        try store.addVersion(first)
        #expect(try store.versions(document: "d") == [first, second])
        #expect(try store.version(document: "d", number: 2) == second)
        #expect(try store.version(document: "d", number: 3) == nil)
        #expect(throws: StoreError.conflict("UNIQUE constraint failed: versions.document, versions.number")) { try store.addVersion(second) }
        #expect(throws: StoreError.notFound("no document x")) {
            try store.addVersion(StoredVersion(documentID: "x", number: 1, revision: 0, time: 0, text: ""))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func sessionsPasteboardsAndMetaAreStoredAndRemoved(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        var alice = StoredSession(id: "s1", tokenHash: Array(repeating: 0xAB, count: 32), name: "Alice", color: "#ff0000", created: 1, lastSeen: 2)
        let bob = StoredSession(id: "s2", tokenHash: [1, 2, 3], name: "Bob", color: "#00ff00", created: 3, lastSeen: 4)
        try store.upsertSession(alice)
        try store.upsertSession(bob)
        alice.lastSeen = 99
        try store.upsertSession(alice)
        #expect(try store.sessions() == [alice, bob])
        try store.deleteSession("s2")
        #expect(try store.sessions() == [alice])

        let general = StoredPasteboard(name: "general", owner: nil, persistent: true, changeCount: 3, payload: [9, 9])
        var mine = StoredPasteboard(name: "mine", owner: "s1", persistent: false, changeCount: 0, payload: [])
        try store.upsertPasteboard(general)
        try store.upsertPasteboard(mine)
        mine.changeCount = 1
        mine.shared = true
        mine.sharedWith = ["user:u_a", "user:u_b"]
        mine.payload = Array("[[{\"type\":\"public.utf8-plain-text\",\"string\":\"x\"}]]".utf8)
        try store.upsertPasteboard(mine)
        #expect(try store.pasteboards() == [general, mine])
        try store.deletePasteboard("mine")
        #expect(try store.pasteboards() == [general])

        try store.setMeta("schema", [1])
        try store.setMeta("empty", [])
        #expect(try store.meta("schema") == [1])
        #expect(try store.meta("empty") == [])
        #expect(try store.meta("missing") == nil)
        try store.setMeta("schema", nil)
        #expect(try store.meta("schema") == nil)
        #expect(try store.loadAll().meta == ["empty": []])
    }

    /// `lastSeen` moves forward only, in one write; sessions not stored stay absent.
    @Test(arguments: StoreKind.allCases)
    func sessionsLastSeenOnlyMovesForward(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let session = { (id: String, lastSeen: Double) in
            StoredSession(id: id, tokenHash: [1], name: id, color: "#111111", created: 1, lastSeen: lastSeen)
        }
        try store.upsertSession(session("a", 10))
        try store.upsertSession(session("b", 10))
        try store.updateSessionsLastSeen(["a": 20, "b": 5, "gone": 30])
        try store.updateSessionsLastSeen([:])
        #expect(try store.sessions() == [session("a", 20), session("b", 10)])
        try store.deleteSession("gone")
        try store.deletePasteboard("none")
    }

    /// Ids are told apart by their bytes, as SQLite does, and listed in byte order: these two
    /// spell "é" precomposed and decomposed, which Swift's `String` holds equal.
    @Test(arguments: StoreKind.allCases)
    func idsDifferingOnlyInNormalizationAreTwoDocuments(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try store.createDocument(Fixture.document(composed, title: "composed"))
        try store.createDocument(Fixture.document(decomposed, title: "decomposed"))
        try store.appendAndWait(Fixture.changes(composed, 1...2))
        #expect(try store.lastRevision(document: decomposed) == 0)
        #expect(try store.document(decomposed)?.title == "decomposed")
        let ids = try store.loadAll().documents.map { Array($0.document.id.utf8) }
        #expect(ids == [Array(decomposed.utf8), Array(composed.utf8)])
    }

    /// SQLite keeps a NaN as NULL, which its NOT NULL times refuse; infinities are kept.
    @Test(arguments: StoreKind.allCases)
    func aNaNTimeIsRefusedAsAConflict(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        var document = Fixture.document("d")
        document.created = .nan
        #expect(throws: StoreError.conflict("NOT NULL constraint failed: documents.created")) { try store.createDocument(document) }
        document.created = -.infinity
        try store.createDocument(document)
        document.modified = .nan
        #expect(throws: StoreError.conflict("NOT NULL constraint failed: documents.modified")) { try store.updateDocument(document) }
        #expect(try store.document("d")?.created == -.infinity)
        #expect(throws: StoreError.conflict("NOT NULL constraint failed: versions.time")) {
            try store.addVersion(StoredVersion(documentID: "d", number: 1, revision: 0, time: .nan, text: ""))
        }
        #expect(throws: StoreError.conflict("NOT NULL constraint failed: sessions.last_seen")) {
            try store.upsertSession(StoredSession(id: "s", tokenHash: [], name: "", color: "", created: 1, lastSeen: .nan))
        }
        #expect(try store.sessions().isEmpty)
        #expect(try store.versions(document: "d").isEmpty)
    }
}
