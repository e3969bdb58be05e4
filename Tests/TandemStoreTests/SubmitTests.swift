import Dispatch
import Testing
@testable import TandemStore

/// `submit`: a unit of writes stored all or none, in the order submitted, without blocking.
@Suite struct SubmitTests {
    let directory = TemporaryDirectory()

    @Test(arguments: StoreKind.allCases)
    func aUnitIsStoredWhole(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        let board = StoredPasteboard(name: "general", owner: nil, persistent: true, changeCount: 3, payload: [1, 2, 3])
        try store.perform([.append([Fixture.change("d", 1)]), .upsertPasteboard(board), .setMeta("k", [9])])
        #expect(try store.lastRevision(document: "d") == 1)
        #expect(try store.pasteboards() == [board])
        #expect(try store.meta("k") == [9])
    }

    /// A conflict anywhere in the unit (here a revision gap after a valid pasteboard write)
    /// stores none of it, and other units in the same batch are not affected.
    @Test(arguments: StoreKind.allCases)
    func aConflictStoresNothingOfItsUnit(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        let board = StoredPasteboard(name: "general", owner: nil, persistent: true, changeCount: 1, payload: [1])
        let bad = StoreTicket(), good = StoreTicket()
        store.submit([.upsertPasteboard(board), .append([Fixture.change("d", 2)])]) { bad.finish($0) }
        store.submit([.append([Fixture.change("d", 1)])]) { good.finish($0) }
        guard case .failure(.conflict) = bad.wait() else {
            Issue.record("expected a conflict, got \(bad.wait())")
            return
        }
        #expect(throws: Never.self) { try good.wait().get() }
        #expect(try store.pasteboards().isEmpty)
        #expect(try store.lastRevision(document: "d") == 1)
    }

    /// Units land in submission order: the last value submitted for a key is the one kept,
    /// even when many are queued before the writer runs.
    @Test(arguments: StoreKind.allCases)
    func unitsRunInSubmissionOrder(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        var tickets: [StoreTicket] = []
        for i in 0..<200 {
            let t = StoreTicket()
            store.submit([.setMeta("k", [UInt8(i)])]) { t.finish($0) }
            tickets.append(t)
        }
        for t in tickets { try t.wait().get() }
        #expect(try store.meta("k") == [199])
    }

    /// A session is stored in a unit as by `upsertSession`: a second write replaces it, and a
    /// delete in a later unit removes it.
    @Test(arguments: StoreKind.allCases)
    func aUnitMayStoreASession(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let session = StoredSession(id: "s", tokenHash: [1], name: "S", color: "#000000", created: 1, lastSeen: 1)
        var renamed = session
        renamed.name = "Renamed"
        try store.perform([.upsertSession(session), .upsertSession(renamed)])
        #expect(try store.sessions() == [renamed])
        try store.perform([.deleteSession("s")])
        #expect(try store.sessions().isEmpty)
    }

    /// Deleting a document in a unit removes its rows; an absent one is no error there.
    @Test(arguments: StoreKind.allCases)
    func aUnitMayDeleteADocumentPresentOrNot(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...3))
        try store.setMeta("journal:d", [1])
        try store.perform([.deleteDocument("d"), .setMeta("journal:d", nil)])
        #expect(try store.document("d") == nil)
        #expect(try store.meta("journal:d") == nil)
        try store.perform([.deleteDocument("d")])
    }

    @Test(arguments: StoreKind.allCases)
    func aUnitMaySnapshotTrimAndAddAVersion(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.appendAndWait(Fixture.changes("d", 1...4))
        try store.perform([
            .writeSnapshot(StoredSnapshot(documentID: "d", revision: 3, payload: [7])),
            .trimChanges(document: "d", through: 3),
            .addVersion(StoredVersion(documentID: "d", number: 1, revision: 3, time: 1, text: "v")),
        ])
        #expect(try store.snapshot(document: "d")?.revision == 3)
        #expect(try store.changes(document: "d", after: 0).map(\.revision) == [4])
        #expect(try store.versions(document: "d").map(\.number) == [1])
        // A taken version number is a conflict, and so nothing else of its unit is kept.
        #expect(throws: StoreError.conflict("UNIQUE constraint failed: versions.document, versions.number")) {
            try store.perform([.setMeta("x", [1]), .addVersion(StoredVersion(documentID: "d", number: 1, revision: 4, time: 2, text: "w"))])
        }
        #expect(try store.meta("x") == nil)
    }

    /// Autosave's checkpoint takes the place of the one before it in one unit, keeping what it
    /// says of itself: automatic, since when, and who wrote its text.
    @Test(arguments: StoreKind.allCases)
    func anAutomaticCheckpointTakesThePlaceOfTheOneBeforeIt(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.createDocument(Fixture.document("d"))
        try store.addVersion(StoredVersion(documentID: "d", number: 1, revision: 0, time: 1, text: "named", name: "Draft"))
        let first = StoredVersion(documentID: "d", number: 2, revision: 0, time: 5, text: "a", automatic: true, since: 5,
                                  authorship: [1, 0, 1, 1, 0])
        try store.perform([.addVersion(first)])
        let second = StoredVersion(documentID: "d", number: 3, revision: 0, time: 9, text: "ab", automatic: true, since: 5,
                                   authorship: Array(0...255))
        try store.perform([.removeCheckpoint(document: "d", number: 2), .addVersion(second)])
        let versions = try store.versions(document: "d")
        #expect(versions.map(\.number) == [1, 3])
        #expect(versions[0].automatic == false && versions[0].since == nil && versions[0].authorship == nil)
        #expect(versions[1] == second)
        #expect(try store.version(document: "d", number: 3) == second)
        #expect(try store.version(document: "d", number: 2) == nil)
        // Removing what is not there is no error, and a version saved on purpose stays.
        try store.perform([.removeCheckpoint(document: "d", number: 2), .removeCheckpoint(document: "nope", number: 1),
                           .removeCheckpoint(document: "d", number: 1)])
        #expect(try store.versions(document: "d").map(\.number) == [1, 3])
        // A named checkpoint is one no later checkpoint replaces.
        try store.perform([.nameVersion(document: "d", number: 3, name: "Kept ✓")])
        try store.perform([.removeCheckpoint(document: "d", number: 3)])
        let named = try #require(try store.version(document: "d", number: 3))
        #expect((named.name, named.automatic, named.since, named.text) == ("Kept ✓", false, 5, "ab"))
        try store.perform([.nameVersion(document: "d", number: 3, name: nil)])
        #expect(try store.version(document: "d", number: 3)?.name == nil)
        #expect(throws: StoreError.notFound("no version 9 of document d")) {
            try store.perform([.setMeta("x", [1]), .nameVersion(document: "d", number: 9, name: "x")])
        }
        #expect(try store.meta("x") == nil)
        // The ledger says what each holds without reading the texts.
        let ledger = try store.versionLedger(document: "d")
        #expect(ledger == VersionLedger(try store.versions(document: "d").map(VersionLedger.Entry.init)))
        #expect(ledger.entries.map(\.bytes) == [VersionLedger.rowBytes + 5, VersionLedger.rowBytes + 2 + 256])
        #expect(try store.versionLedger(document: "nope") == VersionLedger())
        // A list of them without their texts.
        #expect(try store.versionSummaries(document: "d") == (try store.versions(document: "d").map(\.summary)))
        #expect(try store.versionSummaries(document: "d").map(\.length) == [5, 2])
        // Removing any version, named or not; one not there is `.notFound`.
        try store.perform([.removeVersion(document: "d", number: 1)])
        #expect(try store.versions(document: "d").map(\.number) == [3])
        #expect(throws: StoreError.notFound("no version 1 of document d")) {
            try store.perform([.removeVersion(document: "d", number: 1)])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSubmitAfterCloseFailsClosed(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        store.close()
        let t = StoreTicket()
        store.submit([.setMeta("k", [1])]) { t.finish($0) }
        guard case .failure(.closed) = t.wait() else {
            Issue.record("expected .closed, got \(t.wait())")
            return
        }
    }

    /// A unit that fails at its last write leaves nothing of any earlier write behind,
    /// whatever kind of write it was, and the next unit starts from the state before it.
    @Test(arguments: StoreKind.allCases)
    func aFailedUnitUndoesEveryKindOfWrite(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        for id in ["a", "b"] { try store.createDocument(Fixture.document(id)) }
        try store.appendAndWait(Fixture.changes("a", 1...6))
        try store.writeSnapshot(StoredSnapshot(documentID: "a", revision: 2, payload: [2]))
        try store.addVersion(StoredVersion(documentID: "a", number: 1, revision: 2, time: 1, text: "two"))
        try store.upsertSession(StoredSession(id: "s", tokenHash: [1], name: "S", color: "#000000", created: 1, lastSeen: 1))
        try store.upsertPasteboard(StoredPasteboard(name: "p", owner: nil, persistent: true, changeCount: 1, payload: [1]))
        try store.setMeta("m", [1])
        let before = try store.loadAll()

        var renamed = Fixture.document("a", title: "Renamed")
        renamed.metadata = [9]
        #expect(throws: StoreError.notNext("a", stored: 8, first: 99)) {
            try store.perform([
                .append(Fixture.changes("a", 7...8)),
                .writeSnapshot(StoredSnapshot(documentID: "a", revision: 7, payload: [7])),
                .trimChanges(document: "a", through: 7),
                .nameVersion(document: "a", number: 1, name: "renamed"),
                .addVersion(StoredVersion(documentID: "a", number: 2, revision: 7, time: 2, text: "seven")),
                .updateDocument(renamed),
                .deleteDocument("b"),
                .createDocument(Fixture.document("c"), snapshot: nil),
                .append(Fixture.changes("c", 1...2)),
                .upsertPasteboard(StoredPasteboard(name: "p", owner: "s", persistent: false, changeCount: 2, payload: [2])),
                .deletePasteboard("p"),
                .upsertSession(StoredSession(id: "t", tokenHash: [2], name: "T", color: "#000000", created: 2, lastSeen: 2)),
                .deleteSession("s"),
                .setMeta("m", nil),
                .setMeta("n", [2]),
                .append([Fixture.change("a", 99)]),
            ])
        }
        #expect(try store.loadAll() == before)
        #expect(try store.changes(document: "a", after: 0) == Fixture.changes("a", 1...6))
        #expect(try store.versions(document: "a").map(\.number) == [1])
        try store.appendAndWait([Fixture.change("a", 7)])
        #expect(try store.lastRevision(document: "a") == 7)
    }
}
