import Testing
import TandemStore

/// Each person's opened documents: latest first, a later opening wins, at most
/// `RecentDocument.limit` kept, gone with the document or the person; and sessions keep the
/// grants and expiry an embedding application's token gave them.
@Suite struct RecentDocumentTests {
    let directory = TemporaryDirectory()

    static func document(_ id: String) -> StoreWrite {
        .createDocument(StoredDocument(id: id, title: id, created: 1, modified: 1), snapshot: nil)
    }

    static func opened(_ person: String, _ id: String, at time: Double) -> StoreWrite {
        .recordOpened(person: person, RecentDocument(documentID: id, opened: time))
    }

    @Test(arguments: StoreKind.allCases)
    func openedDocumentsAreListedLatestFirstAndALaterOpeningWins(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.perform([Self.document("a"), Self.document("b"), Self.document("c")])
        try store.perform([Self.opened("user:1", "a", at: 10), Self.opened("user:1", "b", at: 20), Self.opened("user:2", "c", at: 5)])
        try store.perform([Self.opened("user:1", "a", at: 30), Self.opened("user:1", "b", at: 15)])
        #expect(try store.recentDocuments(person: "user:1") == [RecentDocument(documentID: "a", opened: 30),
                                                                RecentDocument(documentID: "b", opened: 20)])
        #expect(try store.recentDocuments(person: "user:2") == [RecentDocument(documentID: "c", opened: 5)])
        #expect(try store.recentDocuments(person: "nobody") == [])
    }

    @Test(arguments: StoreKind.allCases)
    func aDocumentNotStoredIsNotNotedAndADeletedOneIsForgotten(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.perform([Self.document("a"), Self.document("b")])
        try store.perform([Self.opened("p", "a", at: 1), Self.opened("p", "b", at: 2), Self.opened("p", "ghost", at: 3)])
        try store.perform([.deleteDocument("b")])
        #expect(try store.recentDocuments(person: "p").map(\.documentID) == ["a"])
    }

    @Test(arguments: StoreKind.allCases)
    func eachPersonKeepsOnlyTheLatestUpToTheLimit(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let count = RecentDocument.limit + 5
        try store.perform((0..<count).map { Self.document("d\($0)") })
        for i in 0..<count { try store.perform([Self.opened("p", "d\(i)", at: Double(i))]) }
        let kept = try store.recentDocuments(person: "p")
        #expect(kept.count == RecentDocument.limit)
        #expect(kept.first?.documentID == "d\(count - 1)")
        #expect(kept.last?.documentID == "d5")
    }

    @Test(arguments: StoreKind.allCases)
    func forgettingAPersonLeavesOthersAsTheyWere(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        try store.perform([Self.document("a"), Self.opened("p", "a", at: 1), Self.opened("q", "a", at: 2)])
        try store.perform([.forgetOpened(person: "p")])
        #expect(try store.recentDocuments(person: "p") == [])
        #expect(try store.recentDocuments(person: "q").map(\.documentID) == ["a"])
    }

    @Test(arguments: StoreKind.allCases)
    func aSessionKeepsItsGrantsAndExpiry(_ kind: StoreKind) throws {
        let store = try kind.make(in: directory)
        defer { store.close() }
        let session = StoredSession(id: "s", tokenHash: [1], name: "s", color: "#123456", created: 1, lastSeen: 2,
                                    userID: "u", grants: #"{"doc":"editor"}"#, expires: 1234.5)
        try store.perform([.upsertSession(session)])
        #expect(try store.sessions() == [session])
        #expect(try store.loadAll().sessions == [session])
    }
}
